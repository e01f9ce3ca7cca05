import type { AuditSink } from '../storage/ports/audit.js';
import { ProviderUnavailableError, UnknownProviderError } from '../providers/errors.js';
import { quote, SchedulerError } from '../scheduler/index.js';
import { ControlError } from './errors.js';
import { confirmFor, confirmTemplate, type Control, type ControlId, type ControlResult, type ControlTarget } from './types.js';

/** Errors that mean the request was refused (audited as deny); anything else is a failure. */
const REFUSALS = [ControlError, SchedulerError, UnknownProviderError, ProviderUnavailableError];

/** A control as GET /api/v1/controls lists it (docs/resources.md#operator-controls). */
export interface ControlListing {
  id: ControlId;
  label: string;
  description: string;
  destructive: boolean;
  confirm_template: string;
  targets: (Pick<ControlTarget, 'target' | 'label' | 'state' | 'available'> & { confirm: string; detail?: string })[];
}

export interface ControlRequest {
  control: string;
  target: string;
  /** Missing is refused like a wrong one. */
  confirm: string | undefined;
  /** The client address, for the audit trail. */
  source: string | null;
  /** Who asked (`api_key` or `web_session:<id>`), recorded as the event's actor. */
  actor: string | null;
  /** The HTTP request that asked, named on the audit event. */
  requestId?: string;
}

/**
 * Executes operator controls: each needs the exact confirm string for its target (a deliberate
 * second step, not a secret), and every execution, allowed or denied, is audited as `web.control`
 * with the control, target, result and reason.
 */
export class OperatorControls {
  private readonly byId: Map<string, Control>;

  constructor(
    private readonly controls: Control[],
    private readonly audit: AuditSink,
  ) {
    this.byId = new Map(controls.map((control) => [control.id, control]));
  }

  async list(): Promise<ControlListing[]> {
    return Promise.all(this.controls.map(async (control) => ({
      id: control.id,
      label: control.label,
      description: control.description,
      destructive: control.destructive,
      confirm_template: confirmTemplate(control),
      targets: (await control.targets()).map((target) => ({
        target: target.target, label: target.label, state: target.state, available: target.available, confirm: confirmFor(control, target),
        ...(target.detail != null ? { detail: target.detail } : {}),
      })),
    })));
  }

  /** Checks, in order: the control, its target, the confirm string, the target's state; then applies it. */
  async execute(request: ControlRequest): Promise<ControlResult> {
    let result: ControlResult;
    try {
      const control = this.byId.get(request.control);
      if (!control) throw new ControlError('control_not_found', `no control ${quote(request.control)}: the controls are ${[...this.byId.keys()].join(', ')}`);
      const target = await control.find(request.target);
      if (request.confirm !== confirmFor(control, target)) {
        const replaced = control.suffixPlaceholder === undefined ? `<${control.placeholder}> replaced by the target` : `<${control.placeholder}> and <${control.suffixPlaceholder}> replaced as GET /controls lists it for the target`;
        throw new ControlError('confirm_mismatch', `${control.id} needs confirm set to exactly "${confirmTemplate(control)}" with ${replaced}`);
      }
      if (!target.available) throw new ControlError('conflict', target.reason ?? `${control.id} cannot be applied to ${quote(target.target)} now`);
      result = { control: control.id, target: target.target, ...(await control.apply(target)) };
    } catch (error) {
      const refused = REFUSALS.some((type) => error instanceof type);
      await this.record(request, refused ? 'deny' : 'error', refused ? (error as Error).message : 'internal error (details in the service log)');
      throw error;
    }
    await this.record(request, 'allow', 'confirmed', result);
    return result;
  }

  private async record(request: ControlRequest, result: 'allow' | 'deny' | 'error', reason: string, change?: ControlResult): Promise<void> {
    await this.audit.emit({
      event_type: 'web.control', category: 'web', result, subsystem: 'controls', action: request.control.slice(0, 64), actor: request.actor,
      // Job controls carry the job id as task id, like the scheduler's own events of the job.
      source: request.source, task_id: request.control.startsWith('scheduler.') ? request.target.slice(0, 256) : null,
      detail: {
        control: request.control, target: request.target, result: result === 'allow' ? 'allowed' : 'denied', reason,
        ...(change ? { previous: change.previous, current: change.current } : {}),
      },
      request_id: request.requestId,
    });
  }
}
