import { api } from '../api/client.js';
import type { CostSummary } from '../api/types.js';
import { formatUsd } from '../components/format.js';
import { Time } from '../components/time.js';
import { Loaded, Panel, TableWrap } from '../components/panel.js';
import { useResource } from '../use-resource.js';

/** The share of the per-session cap a session has spent, in words (the cap 0 means none). */
function againstCap(spent: number, cap: number): string {
  if (cap <= 0) return 'no cap';
  return `${Math.min(100, Math.round((spent / cap) * 100))}% of ${formatUsd(cap)}`;
}

export function CostsPanel() {
  const summary = useResource(() => api<CostSummary>('/costs/summary', { query: { limit: 20 } }), []);
  return (
    <Panel title="Costs" intro="Spend per session against the per-session cap (max_spend_usd).">
      <Loaded resource={summary}>
        {(c) => (
          <>
            <dl class="facts">
              <dt>Total spend</dt><dd>{formatUsd(c.totals.cost_usd)}</dd>
              <dt>Provider calls</dt><dd>{c.totals.calls}</dd>
              <dt>Tokens (prompt / completion)</dt><dd>{c.totals.prompt_tokens} / {c.totals.completion_tokens}</dd>
              <dt>Cap per session</dt><dd>{c.max_spend_usd > 0 ? formatUsd(c.max_spend_usd) : 'none'}</dd>
            </dl>
            {c.sessions.length === 0 ? <p class="muted">No provider calls yet.</p> : (
              <TableWrap label="Spend per session">
                <table>
                  <thead><tr><th scope="col">Session</th><th scope="col">Spend</th><th scope="col">Against cap</th><th scope="col">Calls</th><th scope="col">Last call</th></tr></thead>
                  <tbody>
                    {c.sessions.map((s) => (
                      <tr key={s.session_id}>
                        <td class="mono">{s.session_id}</td><td>{formatUsd(s.cost_usd)}</td><td>{againstCap(s.cost_usd, c.max_spend_usd)}</td>
                        <td>{s.calls}</td><td><Time iso={s.last_call_at} /></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
          </>
        )}
      </Loaded>
    </Panel>
  );
}
