import { API_PREFIX } from './client.js';
import { APPROVALS_CHANGED } from './approvals.js';
import type { Cost, RunRecord } from './types.js';

/** A run as the console shows it, built up from its event stream (docs/api.md#run-event-stream). */
export interface RunView {
  runId: string;
  sessionId: string;
  /** What the run was asked, when known (from the run record). */
  message?: string;
  state: 'running' | 'waiting_approval' | 'reconnecting' | 'complete' | 'error' | 'cancelled';
  /** What the run waits for an operator to decide (its approval.request), while it waits. */
  waitingFor?: { approvalId: string; request: string };
  provider?: string;
  toolCalls: ToolCallView[];
  /** The answer: so far while it streams, whole once the run is complete. */
  response?: string;
  resolvedProvider?: string;
  toolsUsed?: string[];
  cost?: Cost;
  error?: string;
}

/** One tool call of a run; what its result says arrives with `tool.result` (preview and error where the service sends them). */
export interface ToolCallView {
  callId: string;
  tool: string;
  arguments: unknown;
  isError?: boolean;
  durationMs?: number;
  resultPreview?: string;
  error?: string;
}

export const FINISHED_STATES = new Set<RunView['state']>(['complete', 'error', 'cancelled']);

/** The view of a run from its stored record: where a viewer starts before (or without) its stream. */
export function viewOfRecord(record: RunRecord): RunView {
  const finished = FINISHED_STATES.has(record.status as RunView['state']);
  return {
    runId: record.run_id,
    sessionId: record.session_id,
    message: record.message,
    state: finished ? record.status as RunView['state'] : record.status === 'waiting_approval' ? 'waiting_approval' : 'running',
    provider: record.provider ?? undefined,
    toolCalls: [],
    response: record.response ?? undefined,
    resolvedProvider: record.resolved_provider ?? undefined,
    toolsUsed: record.tools_used ?? undefined,
    cost: record.cost ?? undefined,
    error: record.error ?? undefined,
  };
}

/** A finished record settles a view whose stream ended without its terminal event. */
export function settleWithRecord(view: RunView, record: RunRecord): RunView {
  if (FINISHED_STATES.has(view.state) || !FINISHED_STATES.has(record.status as RunView['state'])) return view;
  const settled = viewOfRecord(record);
  return { ...settled, toolCalls: view.toolCalls, message: view.message ?? settled.message };
}

type Update = (change: (run: RunView) => RunView) => void;
type Payload = Record<string, any>;

const TERMINAL = new Set(['run.complete', 'run.error', 'run.cancelled']);

const HANDLERS: Record<string, (p: Payload) => (run: RunView) => RunView> = {
  'run.start': (p) => (run) => ({ ...run, state: 'running', provider: p.provider ?? run.provider }),
  // A viewer joining mid-answer gets the answer so far once, then the pieces that follow.
  'run.text': (p) => (run) => ({ ...run, response: String(p.text ?? '') }),
  'run.delta': (p) => (run) => ({ ...run, response: (run.response ?? '') + String(p.text ?? '') }),
  'tool.request': (p) => (run) => ({
    ...run, state: 'running', toolCalls: [...run.toolCalls, { callId: String(p.call_id), tool: String(p.tool), arguments: p.arguments }],
  }),
  'tool.result': (p) => (run) => ({
    ...run,
    state: 'running',
    toolCalls: run.toolCalls.map((call) => (call.callId === String(p.call_id) ? { ...call, isError: Boolean(p.is_error), durationMs: p.duration_ms } : call)),
  }),
  'approval.request': (p) => (run) => ({
    ...run, state: 'waiting_approval', waitingFor: { approvalId: String(p.approval_id), request: String(p.request ?? '') },
  }),
  'approval.result': () => (run) => ({ ...run, state: 'running', waitingFor: undefined }),
  'run.complete': (p) => (run) => ({
    ...run, state: 'complete', waitingFor: undefined, response: String(p.response ?? ''), resolvedProvider: p.resolved_provider, toolsUsed: p.tools_used, cost: p.cost,
  }),
  'run.error': (p) => (run) => ({ ...run, state: 'error', waitingFor: undefined, error: String(p.error ?? 'the run failed') }),
  'run.cancelled': () => (run) => ({ ...run, state: 'cancelled', waitingFor: undefined }),
};

/**
 * Follows a run's events with an EventSource, the answer's pieces included as they are written.
 * On a dropped connection the browser reconnects by itself with Last-Event-ID, so the service
 * sends only what was missed (and the answer so far again). `onClosed` is called once the stream
 * ends for good (terminal event, or the service refusing to go on), so the caller can read the
 * run's final state. Returns the function that stops following.
 */
export function followRun(runId: string, update: Update, onClosed: () => void): () => void {
  const source = new EventSource(`${API_PREFIX}/runs/${encodeURIComponent(runId)}/events?include=deltas`);
  const data = (event: Event): Payload => {
    try {
      return JSON.parse((event as MessageEvent<string>).data) as Payload;
    } catch {
      return {};
    }
  };
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    source.close();
    onClosed();
  };
  for (const [name, handler] of Object.entries(HANDLERS)) {
    source.addEventListener(name, (event) => {
      update(handler(data(event)));
      // The nav's pending count is read again at once when a run followed here starts or stops waiting.
      if (name === 'approval.request' || name === 'approval.result') window.dispatchEvent(new Event(APPROVALS_CHANGED));
      if (TERMINAL.has(name)) close();
    });
  }
  source.onopen = () => update((run) => (run.state === 'reconnecting' ? { ...run, state: 'running' } : run));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) close();
    else update((run) => (run.state === 'running' || run.state === 'waiting_approval' ? { ...run, state: 'reconnecting' } : run));
  };
  return () => {
    closed = true;
    source.close();
  };
}
