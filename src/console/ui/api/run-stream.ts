import { API_PREFIX } from './client.js';
import type { Cost } from './types.js';

/** A run as the Ask panel shows it, built up from its event stream (docs/api.md#run-event-stream). */
export interface RunView {
  runId: string;
  sessionId: string;
  state: 'running' | 'waiting_approval' | 'reconnecting' | 'complete' | 'error' | 'cancelled';
  /** What the run waits for an operator to decide (its approval.request), while it waits. */
  waitingFor?: { approvalId: string; request: string };
  provider?: string;
  toolCalls: { callId: string; tool: string; arguments: unknown; isError?: boolean; durationMs?: number }[];
  response?: string;
  resolvedProvider?: string;
  toolsUsed?: string[];
  cost?: Cost;
  error?: string;
}

type Update = (change: (run: RunView) => RunView) => void;

const TERMINAL = new Set(['run.complete', 'run.error', 'run.cancelled']);

/**
 * Follows a run's events with an EventSource. On a dropped connection the browser reconnects by
 * itself with Last-Event-ID, so the service sends only what was missed. `onClosed` is called once
 * the stream ends for good (terminal event, or the service refusing to go on), so the caller can
 * read the run's final state. Returns the function that stops following.
 */
export function followRun(runId: string, update: Update, onClosed: () => void): () => void {
  const source = new EventSource(`${API_PREFIX}/runs/${encodeURIComponent(runId)}/events`);
  const data = (event: Event): Record<string, any> => {
    try {
      return JSON.parse((event as MessageEvent<string>).data) as Record<string, any>;
    } catch {
      return {};
    }
  };
  const handlers: Record<string, (payload: Record<string, any>) => (run: RunView) => RunView> = {
    'run.start': (p) => (run) => ({ ...run, state: 'running', provider: p.provider }),
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
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    source.close();
    onClosed();
  };
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => {
      update(handler(data(event)));
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
