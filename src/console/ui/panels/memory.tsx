import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Turn } from '../api/types.js';
import { Time } from '../components/time.js';
import { Loaded, Panel } from '../components/panel.js';
import { TurnActions } from '../components/turn-actions.js';
import { useResource } from '../use-resource.js';

/** Typing waits this long before searching, so a word typed is one request, not one per key. */
const SEARCH_DEBOUNCE_MS = 300;

export function MemoryPanel({ params }: { params: URLSearchParams }) {
  const [text, setText] = useState(params.get('q') ?? '');
  const [query, setQuery] = useState(text.trim());
  useEffect(() => {
    const timer = window.setTimeout(() => {
      const q = text.trim();
      setQuery(q);
      // The search is part of the address, so a reload or a link shows the same results.
      history.replaceState(null, '', q ? `#/memory?q=${encodeURIComponent(q)}` : '#/memory');
    }, SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [text]);
  return (
    <Panel title="Memory" intro="Search every stored turn; pin what must survive cleanup, delete what must go.">
      <form class="row" role="search" onSubmit={(e) => { e.preventDefault(); setQuery(text.trim()); }}>
        <label for="memory-q">Search turns</label>
        <input id="memory-q" type="search" value={text} maxLength={500} onInput={(e) => setText(e.currentTarget.value)} />
      </form>
      {query === '' ? <p class="muted">Type words to search for; every word must appear.</p> : <Results query={query} />}
    </Panel>
  );
}

function Results({ query }: { query: string }) {
  const results = useResource(() => api<{ results: Turn[] }>('/memory/search', { query: { q: query, limit: 20 } }), [query]);
  return (
    <Loaded resource={results}>
      {({ results: list }) => list.length === 0 ? <p class="muted">No turn matches.</p> : (
        <ol class="turns" aria-label="Matching turns">
          {list.map((turn) => (
            <li key={turn.id} class="turn">
              <p class="turn-meta">
                <strong>{turn.role}</strong> · <span class="mono">{turn.session_id}</span> · <Time iso={turn.timestamp} />
                {turn.pinned ? ' · pinned' : ''}
              </p>
              <p class="turn-text">{turn.preview ?? turn.content}</p>
              <TurnActions turn={turn} changed={() => void results.reload()} />
            </li>
          ))}
        </ol>
      )}
    </Loaded>
  );
}
