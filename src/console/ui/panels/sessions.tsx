import { api } from '../api/client.js';
import type { ApiSession, JobPage, RunPage, Turn } from '../api/types.js';
import { Loaded, Panel, TableWrap } from '../components/panel.js';
import { offsetParam, Pager } from '../components/pager.js';
import { sessionKind } from '../components/session-kind.js';
import { Time } from '../components/time.js';
import { TurnActions } from '../components/turn-actions.js';
import { ActionOutcome, useAction } from '../components/use-action.js';
import { hrefFor, navigate, runsHref } from '../router.js';
import { useResource } from '../use-resource.js';

const PAGE_SIZE = 8;
/** The API lists at most this many sessions (most recently used first); older ones are not reachable here. */
const LIST_MAX = 200;
/** Channel sessions are found in this many of the most recent runs. */
const RECENT_RUNS = 200;

/** An API session page: one more than shown says whether another page follows. */
function loadApiSessions(offset: number): Promise<{ sessions: ApiSession[]; more: boolean }> {
  const limit = Math.min(LIST_MAX, offset + PAGE_SIZE + 1);
  return api<{ sessions: ApiSession[] }>('/sessions', { query: { limit } })
    .then(({ sessions }) => ({ sessions: sessions.slice(offset, offset + PAGE_SIZE), more: sessions.length > offset + PAGE_SIZE }));
}

/** API sessions, paged in the address (`#/sessions?offset=8`); `#/sessions?id=…` opens one's history below. */
export function SessionsPanel({ params }: { params: URLSearchParams }) {
  const selected = params.get('id');
  const offset = offsetParam(params);
  const sessions = useResource(() => loadApiSessions(offset), [offset]);
  const action = useAction();
  const show = (at: number) => navigate('sessions', { offset: at > 0 ? String(at) : undefined });

  const end = (session: ApiSession) => action.run(async () => {
    const label = session.name ? `"${session.name}" (${session.id})` : session.id;
    if (!window.confirm(`End the session ${label}? A run in flight on it is cancelled and its session grants end; its turns stay stored.`)) return null;
    await api(`/sessions/${encodeURIComponent(session.id)}`, { method: 'DELETE' });
    await sessions.reload();
    return `Session ${session.id} ended.`;
  });

  return (
    <Panel title="Sessions" intro="API sessions, most recently used first, and the channel sessions of jobs, the webhook and Discord.">
      <ActionOutcome action={action} />
      <h3>API sessions</h3>
      <Loaded resource={sessions}>
        {({ sessions: list, more }) => list.length === 0 && offset === 0 ? <p class="muted">No API sessions yet: ask something first.</p> : (
          <>
            <p aria-live="polite">{list.length === 0 ? 'No sessions on this page.' : `Sessions ${offset + 1}–${offset + list.length}${more ? '' : ' (the last page)'}`}</p>
            <TableWrap label="API sessions">
              <table>
                <thead><tr><th scope="col">Session</th><th scope="col">Kind</th><th scope="col">Name</th><th scope="col">Provider</th><th scope="col">Turns</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
                <tbody>
                  {list.map((s) => (
                    <tr key={s.id} class={s.id === selected ? 'selected' : undefined} data-session-id={s.id}>
                      <td><a class="mono" href={hrefFor('sessions', { id: s.id, offset: offset > 0 ? String(offset) : undefined })}>{s.id}</a></td>
                      <td>API</td><td>{s.name ?? '—'}</td><td>{s.provider}</td><td>{s.turn_count}</td><td><Time iso={s.last_used_at} /></td>
                      <td class="actions">
                        <SessionLinks id={s.id} />
                        <button type="button" class="danger" onClick={() => end(s)} aria-label={`End session ${s.name ?? s.id}`}>End</button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
            <Pager offset={offset} size={PAGE_SIZE} more={more} noun="sessions" show={show} />
          </>
        )}
      </Loaded>
      {selected && <History sessionId={selected} />}
      <ChannelSessions />
    </Panel>
  );
}

function SessionLinks({ id }: { id: string }) {
  return (
    <>
      <a href={runsHref({ session_id: id })} aria-label={`Runs of ${id}`}>Runs</a>
      <a href={hrefFor('memory', { session_id: id })} aria-label={`Transcript of ${id}`}>Transcript</a>
    </>
  );
}

interface ChannelSession {
  id: string;
  runs: number;
  last: string;
}

/** Sessions of jobs, webhook senders and Discord conversations, found among the most recent runs. */
async function loadChannelSessions(): Promise<{ sessions: ChannelSession[]; jobNames: Map<string, string> }> {
  const [runs, jobs] = await Promise.all([
    api<RunPage>('/runs', { query: { limit: RECENT_RUNS } }),
    api<JobPage>('/scheduler/jobs', { query: { limit: 200 } }),
  ]);
  const found = new Map<string, ChannelSession>();
  for (const run of runs.runs) {
    if (run.source === 'api') continue;
    const seen = found.get(run.session_id);
    if (seen) seen.runs++;
    else found.set(run.session_id, { id: run.session_id, runs: 1, last: run.created_at });
  }
  return { sessions: [...found.values()], jobNames: new Map(jobs.jobs.map((job) => [job.id, job.name])) };
}

function ChannelSessions() {
  const channel = useResource(loadChannelSessions, []);
  const nameOf = (id: string, jobNames: Map<string, string>) =>
    sessionKind(id) === 'job' ? (jobNames.get(id.slice('job:'.length)) ?? '(job removed)') : id.slice(id.indexOf(':') + 1);
  return (
    <>
      <h3>Channel sessions</h3>
      <p class="muted">Found in the {RECENT_RUNS} most recent runs; they end by themselves and have no End action.</p>
      <Loaded resource={channel}>
        {({ sessions, jobNames }) => sessions.length === 0 ? <p class="muted">No recent run of a job, the webhook or Discord.</p> : (
          <TableWrap label="Channel sessions">
            <table>
              <thead><tr><th scope="col">Session</th><th scope="col">Kind</th><th scope="col">Name</th><th scope="col">Recent runs</th><th scope="col">Last run</th><th scope="col">Links</th></tr></thead>
              <tbody>
                {sessions.map((s) => (
                  <tr key={s.id} data-session-id={s.id}>
                    <td><a class="mono" href={hrefFor('memory', { session_id: s.id })}>{s.id}</a></td>
                    <td>{sessionKind(s.id)}</td><td>{nameOf(s.id, jobNames)}</td><td>{s.runs}</td><td><Time iso={s.last} /></td>
                    <td class="actions"><SessionLinks id={s.id} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Loaded>
    </>
  );
}

function History({ sessionId }: { sessionId: string }) {
  const history = useResource(() => api<{ turns: Turn[] }>(`/sessions/${encodeURIComponent(sessionId)}/history`, { query: { limit: 100 } }), [sessionId]);
  return (
    <div class="card">
      <h3>History of <span class="mono">{sessionId}</span></h3>
      <Loaded resource={history}>
        {({ turns }) => turns.length === 0 ? <p class="muted">No turns stored.</p> : (
          <ol class="turns">
            {turns.map((turn) => (
              <li key={turn.id} class={`turn turn-${turn.role === 'user' ? 'user' : 'other'}`}>
                <p class="turn-meta">
                  <strong>{turn.role}</strong> · {turn.provider ?? '—'} · <Time iso={turn.timestamp} />{turn.pinned ? ' · pinned' : ''}
                </p>
                <p class="turn-text">{turn.content}</p>
                <TurnActions turn={turn} changed={() => void history.reload()} />
              </li>
            ))}
          </ol>
        )}
      </Loaded>
    </div>
  );
}
