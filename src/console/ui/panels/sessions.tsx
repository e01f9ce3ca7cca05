import { api } from '../api/client.js';
import type { ApiSession, Turn } from '../api/types.js';
import { Time } from '../components/time.js';
import { Loaded, Panel, TableWrap } from '../components/panel.js';
import { TurnActions } from '../components/turn-actions.js';
import { hrefFor } from '../router.js';
import { useResource } from '../use-resource.js';

/** The most recent API sessions; `#/sessions?id=…` opens one's history below the list. */
export function SessionsPanel({ params }: { params: URLSearchParams }) {
  const selected = params.get('id');
  const sessions = useResource(() => api<{ sessions: ApiSession[] }>('/sessions', { query: { limit: 8 } }), []);
  return (
    <Panel title="Sessions" intro="The eight most recent API sessions. Open one to read its turns.">
      <Loaded resource={sessions}>
        {({ sessions: list }) => list.length === 0 ? <p class="muted">No API sessions yet: ask something first.</p> : (
          <TableWrap label="Sessions">
            <table>
              <thead><tr><th scope="col">Session</th><th scope="col">Name</th><th scope="col">Provider</th><th scope="col">Turns</th><th scope="col">Last used</th></tr></thead>
              <tbody>
                {list.map((s) => (
                  <tr key={s.id} class={s.id === selected ? 'selected' : undefined}>
                    <td><a class="mono" href={hrefFor('sessions', { id: s.id })}>{s.id}</a></td>
                    <td>{s.name ?? '—'}</td><td>{s.provider}</td><td>{s.turn_count}</td><td><Time iso={s.last_used_at} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Loaded>
      {selected && <History sessionId={selected} />}
    </Panel>
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
