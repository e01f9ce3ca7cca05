import { api } from '../api/client.js';
import type { Turn } from '../api/types.js';
import { ErrorNotice } from './panel.js';
import { useAction } from './use-action.js';

/**
 * Pin/unpin and delete for one stored turn, wherever turns are listed. `changed` is called after
 * the service has done it, so the list re-reads the truth instead of guessing.
 */
export function TurnActions({ turn, changed }: { turn: Turn; changed: () => void }) {
  const action = useAction();
  const act = (work: () => Promise<unknown>) => action.run(async () => {
    await work();
    changed();
    return null;
  });
  const path = `/memory/turns/${encodeURIComponent(turn.id)}`;
  const togglePin = () => act(() => api(`${path}/pin`, { method: 'POST', body: { pinned: !turn.pinned } }));
  const remove = () => {
    if (!window.confirm('Delete this turn permanently? It cannot be restored.')) return;
    void act(() => api(path, { method: 'DELETE' }));
  };
  return (
    <span class="actions">
      <button type="button" class="secondary" onClick={togglePin} aria-label={`${turn.pinned ? 'Unpin' : 'Pin'} turn ${turn.id}`}>
        {turn.pinned ? 'Unpin' : 'Pin'}
      </button>
      <button type="button" class="danger" onClick={remove} aria-label={`Delete turn ${turn.id}`}>Delete</button>
      <ErrorNotice message={action.error} />
    </span>
  );
}
