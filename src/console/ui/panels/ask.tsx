import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiFailure, failureMessage } from '../api/client.js';
import { FINISHED_STATES, followRun, settleWithRecord, viewOfRecord, type RunView } from '../api/run-stream.js';
import type { Provider, RunRecord, StartedRun, Turn } from '../api/types.js';
import { formatTime } from '../components/format.js';
import { Markdown } from '../components/markdown-view.js';
import { ErrorNotice, Panel } from '../components/panel.js';
import { RunProgress } from '../components/run-progress.js';
import { hrefFor } from '../router.js';
import { useResource } from '../use-resource.js';

/** Where the conversation is remembered in this browser, so a reload or another panel keeps it. */
const SESSION_KEY = 'agentd.console.ask-session';
const HISTORY_LIMIT = 200;

function storedSession(): string | null {
  try {
    return localStorage.getItem(SESSION_KEY);
  } catch {
    return null;
  }
}

/** Remembered in the browser and in the address (`#/ask?session=…`), so a link opens the same conversation. */
function rememberSession(id: string | null): void {
  try {
    if (id) localStorage.setItem(SESSION_KEY, id);
    else localStorage.removeItem(SESSION_KEY);
  } catch {
    // Storage refused (a private window's quota): the address still holds the conversation.
  }
  if (location.hash.startsWith('#/ask')) history.replaceState(null, '', hrefFor('ask', { session: id ?? undefined }));
}

/**
 * A conversation with the agent: the session's stored turns, then each run started here (or still
 * going when the panel opened) with its tool calls and its answer as it streams.
 */
export function AskPanel({ params }: { params: URLSearchParams }) {
  const providers = useResource(() => api<{ providers: Provider[] }>('/providers'), [], false);
  const [sessionId, setSessionId] = useState<string | null>(() => params.get('session') ?? storedSession());
  const [turns, setTurns] = useState<Turn[]>([]);
  const [runs, setRuns] = useState<RunView[]>([]);
  const [message, setMessage] = useState('');
  const [provider, setProvider] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const following = useRef(new Map<string, () => void>());
  useEffect(() => () => {
    for (const stop of following.current.values()) stop();
  }, []);
  useEffect(() => rememberSession(sessionId), [sessionId]);

  const updateRun = (runId: string, change: (run: RunView) => RunView) =>
    setRuns((list) => list.map((run) => (run.runId === runId ? change(run) : run)));

  /** Follows a run's stream; when it ends without its terminal event, the stored record settles it. */
  const follow = (runId: string) => {
    following.current.get(runId)?.();
    following.current.set(runId, followRun(runId, (change) => updateRun(runId, change), () => {
      following.current.delete(runId);
      api<RunRecord>(`/runs/${encodeURIComponent(runId)}`)
        .then((record) => updateRun(runId, (run) => settleWithRecord(run, record)), (failure: unknown) => setError(failureMessage(failure)));
    }));
  };

  // Opening the panel reads the remembered conversation, and follows its run if one is still going.
  useEffect(() => {
    const id = sessionId;
    if (!id) return undefined;
    let current = true;
    Promise.all([
      api<{ turns: Turn[] }>(`/sessions/${encodeURIComponent(id)}/history`, { query: { limit: HISTORY_LIMIT } }),
      api<{ runs: RunRecord[] }>('/runs', { query: { session_id: id, limit: 1 } }),
    ]).then(([history, latest]) => {
      if (!current) return;
      setTurns(history.turns);
      const last = latest.runs[0];
      if (last && !FINISHED_STATES.has(viewOfRecord(last).state)) {
        setRuns([viewOfRecord(last)]);
        follow(last.run_id);
      }
    }, (failure: unknown) => {
      if (!current) return;
      if (failure instanceof ApiFailure && failure.status === 404) {
        setNotice('The remembered conversation is no longer known to the service: your next message starts a new one.');
        setSessionId(null);
      } else {
        setError(failureMessage(failure));
      }
    });
    return () => {
      current = false;
    };
  }, []);

  const ask = async (event: Event) => {
    event.preventDefault();
    if (message.trim() === '') return;
    setError(null);
    setNotice(null);
    try {
      const started = await api<StartedRun>('/runs', {
        method: 'POST',
        body: { message, ...(sessionId ? { session_id: sessionId } : {}), ...(provider ? { provider } : {}) },
      });
      setSessionId(started.session_id);
      setRuns((list) => [...list, { runId: started.run_id, sessionId: started.session_id, message, state: 'running', toolCalls: [] }]);
      setMessage('');
      follow(started.run_id);
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };

  const active = runs.find((run) => !FINISHED_STATES.has(run.state));
  const stop = async () => {
    if (!active) return;
    try {
      await api(`/runs/${encodeURIComponent(active.runId)}/cancel`, { method: 'POST' });
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };
  const startOver = () => {
    for (const stopFollowing of following.current.values()) stopFollowing();
    following.current.clear();
    setSessionId(null);
    setTurns([]);
    setRuns([]);
    // Forgotten now, not after the next paint: a reload right after the click must not bring it back.
    rememberSession(null);
  };
  const sendOnShortcut = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      (event.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
    }
  };
  const defaultProvider = providers.data?.providers.find((p) => p.is_default)?.name;

  return (
    <Panel title="Ask" intro="A conversation with the agent: each tool call appears as it happens, and the answer as it is written.">
      {(turns.length > 0 || runs.length > 0) && (
        <ol class="conversation" aria-label="Conversation">
          {turns.map((turn) => <TurnItem key={turn.id} turn={turn} />)}
          {runs.map((run) => (
            <li key={run.runId} class="exchange">
              {run.message !== undefined && <UserMessage text={run.message} />}
              <RunProgress run={run} />
            </li>
          ))}
        </ol>
      )}
      <form class="stack" onSubmit={ask}>
        <label for="ask-message">Message</label>
        <textarea id="ask-message" rows={3} required maxLength={32000} value={message} aria-describedby="ask-hint"
          onInput={(e) => setMessage(e.currentTarget.value)} onKeyDown={sendOnShortcut} />
        <p id="ask-hint" class="hint">Ctrl+Enter (⌘+Enter on a Mac) sends.</p>
        <div class="row">
          <label for="ask-provider">Provider</label>
          <select id="ask-provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value)}>
            <option value="">{defaultProvider ? `the default (${defaultProvider})` : 'the default'}</option>
            {(providers.data?.providers ?? []).map((p) => (
              <option key={p.name} value={p.name} disabled={!p.available}>{p.name}{p.available ? '' : ' (unavailable)'}</option>
            ))}
          </select>
          <button type="submit" disabled={active !== undefined}>Ask</button>
          {active && <button type="button" class="danger" onClick={stop}>Stop</button>}
          {sessionId && !active && <button type="button" class="secondary" onClick={startOver}>New conversation</button>}
        </div>
        {sessionId && (
          <p class="muted">Conversation: <a class="mono" href={hrefFor('sessions', { id: sessionId })}>{sessionId}</a></p>
        )}
      </form>
      {notice && <p class="muted" role="status">{notice}</p>}
      <ErrorNotice message={error ?? providers.error} />
    </Panel>
  );
}

function UserMessage({ text }: { text: string }) {
  return (
    <div class="turn turn-user">
      <p class="turn-meta"><strong>You</strong></p>
      <p class="turn-text">{text}</p>
    </div>
  );
}

/** A stored turn: what was asked as plain text, the answer as Markdown. */
function TurnItem({ turn }: { turn: Turn }) {
  if (turn.role === 'user') {
    return <li class="exchange"><UserMessage text={turn.content} /></li>;
  }
  return (
    <li class="exchange">
      <div class="turn turn-assistant">
        <p class="turn-meta"><strong>Agent</strong> · {turn.provider ?? '—'} · {formatTime(turn.timestamp)}</p>
        <Markdown text={turn.content} />
      </div>
    </li>
  );
}
