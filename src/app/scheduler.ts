import type { AgentRuntime } from '../agent/runtime.js';
import type { AuditLog } from '../audit/log.js';
import { controlCatalogue, OperatorControls } from '../controls/index.js';
import type { Logger } from '../log.js';
import type { McpServers } from '../mcp/index.js';
import type { DefaultProviderSetting, ProviderRegistry } from '../providers/index.js';
import { Scheduler } from '../scheduler/index.js';
import type { Storage } from '../storage/ports/storage.js';
import type { LifecyclePart } from './lifecycle.js';

export interface SchedulerInput {
  storage: Storage;
  agent: AgentRuntime;
  audit: AuditLog;
  log: Logger;
  now: () => number;
  providers: ProviderRegistry;
  defaultSetting: DefaultProviderSetting;
  mcp: McpServers;
}

/** Scheduled jobs, and the operator controls over them and the other switchable parts. */
export function wireScheduler({ storage, agent, audit, log, now, providers, defaultSetting, mcp }: SchedulerInput) {
  const scheduler = new Scheduler({ store: storage.jobs, runs: agent, audit, log, now, checkProvider: (name) => void providers.resolve(name) });
  const controls = new OperatorControls(controlCatalogue({ scheduler, providers, defaultProvider: defaultSetting, mcp }), audit);
  const parts = {
    // Jobs fire while the service serves (what fell due before counts as missed); no fire may start
    // a run once the runtime closes.
    runner: { name: 'scheduler', phase: 'listen', start: () => scheduler.runner.start(), stop: () => scheduler.runner.stop() } satisfies LifecyclePart,
    // The outcomes of the fires whose runs the runtime ended are recorded.
    drained: { name: 'scheduler fires recorded', stop: () => scheduler.runner.drain() } satisfies LifecyclePart,
  };
  return { scheduler, controls, parts };
}
