import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Turn } from '../api/types.js';
import { Time } from '../components/time.js';
import { Loaded, Panel } from '../components/panel.js';
import { TurnActions } from '../components/turn-actions.js';
import { hrefFor } from '../router.js';
import { useResource } from '../use-resource.js';

/** Typing waits this long before searching, so a word typed is one request, not one per key. */
const SEARCH_DEBOUNCE_MS = 300;

/** `#/memory?session_id=…` shows that session's transcript and narrows the search to it. */
export function MemoryPanel({ params }: { params: URLSearchParams }) {
  const sessionId = params.get('session_id') ?? '';
  const [text, setText] = useState(params.get('q') ?? '');
  const [query, setQuery] = useState(text.trim());
  useEffect(() => {
    const timer = window.setTimeout(() => {
      const q = text.trim();
      setQuery(q);
      // The search is part of the address, so a reload or a link shows the same results.
      history.replaceState(null, '', hrefFor('memory', { q, session_id: sessionId }));
    }, SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [text, sessionId]);
  return (
    <Panel title="Memory" intro="Search every stored turn; pin what must survive cleanup, delete what must go.">
      <form class="row" role="search" onSubmit={(e) => { e.preventDefault(); setQuery(text.trim()); }}>
        <label for="memory-q">Search turns</label>
        <input id="memory-q" type="search" value={text} maxLength={500} onInput={(e) => setText(e.currentTarget.value)} />
      </form>
      {sessionId !== '' && <p>Only the session <span class="mono">{sessionId}</span>. <a href={hrefFor('memory')}>Search every session</a></p>}
      {query !== '' ? <Results query={query} sessionId={sessionId} />
        : sessionId !== '' ? <Transcript sessionId={sessionId} />
        : <p class="muted">Type words to search for; every word must appear.</p>}
    </Panel>
  );
}

function Results({ query, sessionId }: { query: string; sessionId: string }) {
  const results = useResource(() => api<{ results: Turn[] }>('/memory/search', { query: { q: query, limit: 20, session_id: sessionId } }), [query, sessionId]);
  return (
    <Loaded resource={results}>
      {({ results: list }) => list.length === 0 ? <p class="muted">No turn matches.</p> : <TurnList label="Matching turns" turns={list} changed={() => void results.reload()} />}
    </Loaded>
  );
}

/** A session's stored turns, oldest first: any kind of session, ended or not. */
function Transcript({ sessionId }: { sessionId: string }) {
  const turns = useResource(() => api<{ turns: Turn[] }>('/memory/history', { query: { session_id: sessionId, limit: 200 } }), [sessionId]);
  return (
    <Loaded resource={turns}>
      {({ turns: list }) => list.length === 0 ? <p class="muted">No turn of this session is stored.</p> : <TurnList label="Transcript" turns={list} changed={() => void turns.reload()} />}
    </Loaded>
  );
}

function TurnList({ label, turns, changed }: { label: string; turns: Turn[]; changed: () => void }) {
  return (
    <ol class="turns" aria-label={label}>
      {turns.map((turn) => (
        <li key={turn.id} class="turn">
          <p class="turn-meta">
            <strong>{turn.role}</strong> · <a class="mono" href={hrefFor('memory', { session_id: turn.session_id })}>{turn.session_id}</a> · <Time iso={turn.timestamp} />
            {turn.pinned ? ' · pinned' : ''}
          </p>
          <p class="turn-text">{turn.preview ?? turn.content}</p>
          <TurnActions turn={turn} changed={changed} />
        </li>
      ))}
    </ol>
  );
}
