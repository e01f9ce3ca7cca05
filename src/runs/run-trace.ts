import { stateOf, type ApprovalDecision, type ApprovalKind, type ApprovalRecord, type ApprovalState } from '../storage/ports/approvals.js';
import type { RunEvent, RunRecord } from '../storage/ports/runs.js';

/** Approvals of one run read for its trace at most (a run asks one per tool call or refused request). */
export const MAX_TRACE_APPROVALS = 200;

/** How an approval a step waited for ended (docs/resources.md#run-trace). */
export interface StepApproval {
  approval_id: string;
  status: ApprovalState;
  decision: ApprovalDecision | null;
  decided_by: string | null;
  decided_at: string | null;
}

/** One tool call of the run: its `tool.request` and `tool.result` events side by side. */
export interface TraceStep {
  call_id: string;
  tool: string;
  /** Redacted, as the `tool.request` event has them. */
  arguments: Record<string, unknown>;
  /** Null while the call runs (and for calls stored before the trace kept them). */
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  is_error: boolean | null;
  result_preview: string | null;
  result_truncated: boolean;
  error: string | null;
  /** The approval the call waited for: its tool approval, else the first network request it had approved. */
  approval: StepApproval | null;
}

/** An approval the run asked: a tool call (`subject`: the tool) or a refused request (`subject`: its origin). */
export interface TraceApproval {
  approval_id: string;
  kind: ApprovalKind;
  subject: string;
  status: ApprovalState;
  decision: ApprovalDecision | null;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
}

export interface RunTimings {
  queued_at: string;
  started_at: string | null;
  first_token_at: string | null;
  finished_at: string | null;
  /** From queued to started; null until it starts. */
  queue_ms: number | null;
  /** From queued to finished; null until it finishes. */
  total_ms: number | null;
}

export interface RunTrace {
  steps: TraceStep[];
  approvals: TraceApproval[];
  timings: RunTimings;
}

/** A step being put together, with the approvals asked while its call waited. */
interface OpenStep {
  step: TraceStep;
  asked: string[];
  closed: boolean;
}

/**
 * What a trace view shows of a run: its tool calls from its event log, the approvals it asked from
 * the approval store, and its timings. Fields a stored event lacks (written before they were kept)
 * read null.
 */
export function buildRunTrace(run: RunRecord, events: readonly RunEvent[], approvals: readonly ApprovalRecord[]): RunTrace {
  const byId = new Map(approvals.map((approval) => [approval.id, approval]));
  const outcomes = new Map<string, { decision: ApprovalDecision | null; decided_by: string | null }>();
  const steps: OpenStep[] = [];
  for (const event of events) {
    const data = parse(event.data);
    if (event.name === 'tool.request') {
      steps.push({ step: requested(data), asked: [], closed: false });
    } else if (event.name === 'approval.request') {
      const open = steps.at(-1);
      if (open && !open.closed) open.asked.push(text(data.approval_id) ?? '');
    } else if (event.name === 'approval.result') {
      outcomes.set(text(data.approval_id) ?? '', { decision: (text(data.decision) as ApprovalDecision | null), decided_by: text(data.decided_by) });
    } else if (event.name === 'tool.result') {
      // Call ids are the provider's: the latest call still open with this id is the one answered.
      const open = steps.findLast((candidate) => !candidate.closed && candidate.step.call_id === data.call_id);
      if (open) {
        open.closed = true;
        Object.assign(open.step, answered(data));
      }
    }
  }
  for (const open of steps) {
    const chosen = open.asked.find((id) => byId.get(id)?.kind === 'tool') ?? open.asked[0];
    if (chosen !== undefined) open.step.approval = stepApproval(chosen, byId.get(chosen), outcomes.get(chosen));
  }
  return {
    steps: steps.map((open) => open.step),
    approvals: approvals.map((approval) => ({
      approval_id: approval.id, kind: approval.kind, subject: approval.scope, status: approval.state, decision: approval.decision,
      created_at: approval.created_at, decided_at: approval.decided_at, decided_by: approval.decided_by,
    })),
    timings: {
      queued_at: run.created_at,
      started_at: run.started_at,
      first_token_at: run.first_token_at,
      finished_at: run.finished_at,
      queue_ms: between(run.created_at, run.started_at),
      total_ms: between(run.created_at, run.finished_at),
    },
  };
}

function requested(data: Record<string, unknown>): TraceStep {
  const args = data.arguments;
  return {
    call_id: text(data.call_id) ?? '', tool: text(data.tool) ?? '',
    arguments: args !== null && typeof args === 'object' && !Array.isArray(args) ? args as Record<string, unknown> : {},
    started_at: null, finished_at: null, duration_ms: null, is_error: null, result_preview: null, result_truncated: false, error: null,
    approval: null,
  };
}

function answered(data: Record<string, unknown>): Partial<TraceStep> {
  return {
    started_at: text(data.started_at),
    finished_at: text(data.finished_at),
    duration_ms: typeof data.duration_ms === 'number' ? data.duration_ms : null,
    is_error: typeof data.is_error === 'boolean' ? data.is_error : null,
    result_preview: text(data.result_preview),
    result_truncated: data.result_truncated === true,
    error: text(data.error),
  };
}

/** From the approval store; an approval no longer stored (pruned) as its `approval.result` event told it. */
function stepApproval(
  id: string,
  record: ApprovalRecord | undefined,
  outcome: { decision: ApprovalDecision | null; decided_by: string | null } | undefined,
): StepApproval {
  if (record) return { approval_id: id, status: record.state, decision: record.decision, decided_by: record.decided_by, decided_at: record.decided_at };
  const decision = outcome?.decision ?? null;
  return {
    approval_id: id, status: outcome === undefined ? 'pending' : decision !== null ? stateOf(decision) : 'denied',
    decision, decided_by: outcome?.decided_by ?? null, decided_at: null,
  };
}

/** Our own event data; a row that is not an object reads as empty rather than failing the whole read. */
function parse(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {};
  } catch {
    return {};
  }
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function between(from: string, to: string | null): number | null {
  return to === null ? null : Math.max(0, Date.parse(to) - Date.parse(from));
}
