import type { DefaultProviderSetting, ProviderRegistry } from '../providers/index.js';
import { jobNotFound, quote, type JobState, type JobSummary, type Scheduler } from '../scheduler/index.js';
import type { McpServers } from '../mcp/index.js';
import { ControlError } from './errors.js';
import { acceptManifestControl } from './mcp-control.js';
import type { Control, ControlChange, ControlTarget } from './types.js';

export interface ControlDomains {
  scheduler: Scheduler;
  providers: ProviderRegistry;
  defaultProvider: DefaultProviderSetting;
  mcp: McpServers;
}

/** The controls of docs/resources.md#operator-controls, in the order the console shows them. */
export function controlCatalogue(domains: ControlDomains): Control[] {
  return [
    setDefaultProvider(domains),
    jobControl(domains.scheduler, {
      id: 'scheduler.pause_job', label: 'Pause job', verb: 'pause-job', from: 'active',
      description: 'Stops the job\'s fires until it is resumed; a run in flight finishes.',
      apply: (id) => domains.scheduler.pause(id),
    }),
    jobControl(domains.scheduler, {
      id: 'scheduler.resume_job', label: 'Resume job', verb: 'resume-job', from: 'paused',
      description: 'Fires the job again from its next occurrence; occurrences while it was paused are not made up.',
      apply: (id) => domains.scheduler.resume(id),
    }),
    jobControl(domains.scheduler, {
      id: 'scheduler.remove_job', label: 'Remove job', verb: 'remove-job', from: null, destructive: true,
      description: 'Deletes the job for good; a run in flight finishes and the job\'s turns stay in memory.',
      apply: (id) => domains.scheduler.remove(id),
    }),
    acceptManifestControl(domains.mcp),
  ];
}

function setDefaultProvider({ providers, defaultProvider }: ControlDomains): Control {
  const describe = (name: string): ControlTarget | null => {
    const provider = providers.get(name);
    if (!provider) return null;
    const reason = provider.unavailableReason();
    const isDefault = name === providers.default;
    return {
      target: name,
      label: `${name} (${provider.model})`,
      state: isDefault ? 'default' : reason === null ? 'available' : 'unavailable',
      available: !isDefault && reason === null,
      reason: isDefault ? `provider ${quote(name)} is already the default` : reason === null ? null : `provider ${quote(name)} is not available: ${reason}`,
    };
  };
  return {
    id: 'provider.set_default',
    label: 'Set default provider',
    description: 'Makes the provider the one that answers requests and job fires that name none; kept across restarts.',
    destructive: false,
    verb: 'set-default',
    placeholder: 'provider',
    targets: async () => providers.names().map((name) => describe(name)!),
    find: async (name) => {
      const target = describe(name);
      if (!target) throw new ControlError('target_not_found', `no provider ${quote(name)}: the providers are ${providers.names().join(', ')}`);
      return target;
    },
    apply: ({ target }) => defaultProvider.set(target),
  };
}

interface JobControlSpec {
  id: Control['id'];
  label: string;
  description: string;
  verb: string;
  /** The state the job must be in, or null for any. */
  from: JobState | null;
  destructive?: boolean;
  apply(id: string): Promise<ControlChange>;
}

function jobControl(scheduler: Scheduler, spec: JobControlSpec): Control {
    // The label carries the operator's text: both getters hand it out censored.
  const describe = (job: Pick<JobSummary, 'id' | 'name' | 'schedule' | 'state'>): ControlTarget => {
    const available = spec.from === null || job.state === spec.from;
    return {
      target: job.id,
      label: `${job.name} (${job.schedule})`,
      state: job.state,
      available,
      reason: available ? null : `job ${quote(job.id)} is already ${job.state}`,
    };
  };
  return {
    id: spec.id,
    label: spec.label,
    description: spec.description,
    destructive: spec.destructive ?? false,
    verb: spec.verb,
    placeholder: 'job id',
    targets: async () => (await scheduler.all()).map(describe),
    find: async (id) => {
      const job = await scheduler.get(id);
      if (!job) throw jobNotFound(id);
      return describe(job);
    },
    apply: ({ target }) => spec.apply(target),
  };
}
