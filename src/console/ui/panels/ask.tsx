import { useEffect, useRef, useState } from 'preact/hooks';
import { api, failureMessage } from '../api/client.js';
import { followRun, type RunView } from '../api/run-stream.js';
import type { Provider, StartedRun } from '../api/types.js';
import { formatUsd } from '../components/format.js';
import { ErrorNotice, Panel } from '../components/panel.js';
import { hrefFor } from '../router.js';
import { useResource } from '../use-resource.js';

/** A run record as GET /runs/{id} returns it: what settles the view when the stream ended early. */
interface RunRecord {
  status: string;
  response: string | null;
  error: string | null;
  resolved_provider: string | null;
  tools_used: string[] | null;
  cost: RunView['cost'] | null;
}

const FINISHED = new Set(['complete', 'error', 'cancelled']);

export function AskPanel() {
  const providers = useResource(() => api<{ providers: Provider[] }>('/providers'), [], false);
  const [message, setMessage] = useState('');
  const [provider, setProvider] = useState('');
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [run, setRun] = useState<RunView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const stopFollowing = useRef<(() => void) | null>(null);
  useEffect(() => () => stopFollowing.current?.(), []);

  const settleFromRecord = async (runId: string) => {
    try {
      const record = await api<RunRecord>(`/runs/${encodeURIComponent(runId)}`);
      if (!FINISHED.has(record.status)) return;
      setRun((current) => current && current.runId === runId && !FINISHED.has(current.state) ? {
        ...current,
        state: record.status as RunView['state'],
        response: record.response ?? undefined,
        error: record.error ?? undefined,
        resolvedProvider: record.resolved_provider ?? undefined,
        toolsUsed: record.tools_used ?? undefined,
        cost: record.cost ?? undefined,
      } : current);
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };

  const ask = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const started = await api<StartedRun>('/runs', {
        method: 'POST',
        body: { message, ...(sessionId ? { session_id: sessionId } : {}), ...(provider ? { provider } : {}) },
      });
      setSessionId(started.session_id);
      setRun({ runId: started.run_id, sessionId: started.session_id, state: 'running', toolCalls: [] });
      setMessage('');
      stopFollowing.current?.();
      stopFollowing.current = followRun(
        started.run_id,
        (change) => setRun((current) => (current && current.runId === started.run_id ? change(current) : current)),
        () => void settleFromRecord(started.run_id),
      );
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };

  const stop = async () => {
    if (!run) return;
    try {
      await api(`/runs/${encodeURIComponent(run.runId)}/cancel`, { method: 'POST' });
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };

  const busy = run !== null && !FINISHED.has(run.state);
  return (
    <Panel title="Ask" intro="Start a run and watch it work: each tool call appears as it happens, then the answer.">
      <form class="stack" onSubmit={ask}>
        <label for="ask-message">Message</label>
        <textarea id="ask-message" rows={3} required maxLength={32000} value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
        <div class="row">
          <label for="ask-provider">Provider</label>
          <select id="ask-provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value)}>
            <option value="">the default</option>
            {(providers.data?.providers ?? []).map((p) => (
              <option key={p.name} value={p.name} disabled={!p.available}>{p.name}{p.available ? '' : ' (unavailable)'}</option>
            ))}
          </select>
          <button type="submit" disabled={busy}>Ask</button>
          {busy && <button type="button" class="danger" onClick={stop}>Stop</button>}
          {sessionId && !busy && (
            <button type="button" class="secondary" onClick={() => { setSessionId(null); setRun(null); }}>New conversation</button>
          )}
        </div>
        {sessionId && <p class="muted">Conversation: <span class="mono">{sessionId}</span></p>}
      </form>
      <ErrorNotice message={error ?? providers.error} />
      {run && <RunProgress run={run} />}
    </Panel>
  );
}

const STATE_TEXT: Record<RunView['state'], string> = {
  running: 'Working…',
  waiting_approval: 'Waiting for an operator\'s approval…',
  reconnecting: 'Connection lost; reconnecting…',
  complete: 'Done',
  error: 'Failed',
  cancelled: 'Stopped',
};

function RunProgress({ run }: { run: RunView }) {
  return (
    <div class="card run" aria-live="polite">
      <p>Run <span class="mono">{run.runId}</span>: <strong data-run-state={run.state}>{STATE_TEXT[run.state]}</strong></p>
      {run.waitingFor && (
        <p class="waiting" role="status">
          Paused until the request <code class="mono">{run.waitingFor.request}</code> is decided in{' '}
          <a href={hrefFor('approvals')}>Approvals</a>.
        </p>
      )}
      {run.toolCalls.length > 0 && (
        <ol class="tool-calls" aria-label="Tool calls">
          {run.toolCalls.map((call) => (
            <li key={call.callId}>
              <span class="mono">{call.tool}({JSON.stringify(call.arguments ?? {})})</span>{' '}
              {call.durationMs === undefined ? '… running' : `${call.isError ? 'failed' : 'ok'} in ${call.durationMs} ms`}
            </li>
          ))}
        </ol>
      )}
      {run.response !== undefined && <div class="answer">{run.response}</div>}
      {run.error && <p class="error">{run.error}</p>}
      {run.state === 'complete' && (
        <dl class="facts">
          <dt>Provider</dt><dd>{run.resolvedProvider ?? '—'}</dd>
          <dt>Tools used</dt><dd>{run.toolsUsed && run.toolsUsed.length > 0 ? run.toolsUsed.join(', ') : 'none'}</dd>
          <dt>Cost</dt><dd>{run.cost ? `${formatUsd(run.cost.cost_usd)} (${run.cost.prompt_tokens} + ${run.cost.completion_tokens} tokens)` : '—'}</dd>
        </dl>
      )}
    </div>
  );
}
