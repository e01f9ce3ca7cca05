import { api } from '../api/client.js';
import type { CostSummary, HourlySpend } from '../api/types.js';
import { formatUsd } from '../components/format.js';
import { lastDays, localDay } from '../components/hours.js';
import { Loaded, Panel, TableWrap } from '../components/panel.js';
import { offsetParam, Pager } from '../components/pager.js';
import { sessionKind } from '../components/session-kind.js';
import { StackedBars } from '../components/stacked-bars.js';
import { Time } from '../components/time.js';
import { hrefFor, navigate } from '../router.js';
import { useResource } from '../use-resource.js';

const PAGE_SIZE = 20;
/** Days drawn in the spend chart (the API answers up to 31). */
const CHART_DAYS = 14;

/** The share of the per-session cap a session has spent, unclamped: 240 % says how far past it went. */
function capShare(spent: number, cap: number): number | null {
  return cap > 0 ? Math.round((spent / cap) * 100) : null;
}

export function CostsPanel({ params }: { params: URLSearchParams }) {
  const offset = offsetParam(params);
  const summary = useResource(() => api<CostSummary>('/costs/summary', { query: { limit: PAGE_SIZE, offset } }), [offset]);
  const since = new Date(Date.now() - CHART_DAYS * 24 * 3_600_000).toISOString();
  const hourly = useResource(() => api<HourlySpend>('/costs/hourly', { query: { since } }), []);
  return (
    <Panel title="Costs" intro="Spend per session against the per-session cap (max_spend_usd), and per provider, model and day.">
      <Loaded resource={summary}>
        {(c) => (
          <>
            <dl class="facts">
              <dt>Total spend</dt><dd>{formatUsd(c.totals.cost_usd)}</dd>
              <dt>Provider calls</dt><dd>{c.totals.calls}</dd>
              <dt>Tokens (prompt / completion)</dt><dd>{c.totals.prompt_tokens} / {c.totals.completion_tokens}</dd>
              <dt>Cap per session</dt><dd>{c.max_spend_usd > 0 ? formatUsd(c.max_spend_usd) : 'none'}</dd>
            </dl>
            {c.totals.sessions === 0 ? <p class="muted">No provider calls yet.</p> : (
              <>
                <p aria-live="polite">Sessions {offset + 1}–{offset + c.sessions.length} of {c.totals.sessions}, most spend first</p>
                <SessionSpend summary={c} />
                <Pager offset={offset} size={PAGE_SIZE} more={offset + PAGE_SIZE < c.totals.sessions} noun="sessions"
                  show={(at) => navigate('costs', { offset: at > 0 ? String(at) : undefined })} />
              </>
            )}
          </>
        )}
      </Loaded>
      <Loaded resource={hourly}>{(h) => <SpendCharts hourly={h} />}</Loaded>
    </Panel>
  );
}

function SessionSpend({ summary }: { summary: CostSummary }) {
  const cap = summary.max_spend_usd;
  return (
    <TableWrap label="Spend per session">
      <table>
        <thead><tr><th scope="col">Session</th><th scope="col">Kind</th><th scope="col">Spend</th><th scope="col">Against cap</th><th scope="col">Calls</th><th scope="col">Last call</th></tr></thead>
        <tbody>
          {summary.sessions.map((s) => {
            const share = capShare(s.cost_usd, cap);
            const over = share !== null && s.cost_usd > cap;
            return (
              <tr key={s.session_id} class={over ? 'over-cap' : undefined} data-session-id={s.session_id}>
                <td><a class="mono" href={hrefFor('memory', { session_id: s.session_id })}>{s.session_id}</a></td>
                <td>{sessionKind(s.session_id)}</td>
                <td>{formatUsd(s.cost_usd)}</td>
                <td>{share === null ? 'no cap' : <span class={over ? 'over-cap' : undefined}>{share} % of {formatUsd(cap)}{over ? ' (over the cap)' : ''}</span>}</td>
                <td>{s.calls}</td><td><Time iso={s.last_call_at} /></td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** Spend per day (in the console's zone) stacked by provider and model, and the same per model in a table. */
function SpendCharts({ hourly }: { hourly: HourlySpend }) {
  const models = new Map<string, { calls: number; cost: number }>();
  const days = new Map<string, Map<string, number>>();
  for (const row of hourly.hours) {
    const model = `${row.provider} / ${row.model}`;
    const sum = models.get(model) ?? { calls: 0, cost: 0 };
    models.set(model, { calls: sum.calls + row.calls, cost: sum.cost + row.cost_usd });
    const day = localDay(row.hour);
    const values = days.get(day) ?? new Map<string, number>();
    values.set(model, (values.get(model) ?? 0) + row.cost_usd);
    days.set(day, values);
  }
  if (models.size === 0) return <p class="muted">No provider calls in the last {CHART_DAYS} days.</p>;
  const ranked = [...models.entries()].sort((a, b) => b[1].cost - a[1].cost);
  const bars = lastDays(CHART_DAYS).map((day) => ({ key: day, label: day.slice(5), values: days.get(day) ?? new Map<string, number>() }));
  return (
    <>
      <StackedBars title={`Spend per day of the last ${CHART_DAYS} days, by provider and model`}
        series={ranked.map(([model]) => ({ id: model, label: model }))} bars={bars} format={formatUsd} />
      <TableWrap label="Spend per provider and model">
        <table>
          <caption class="sr-only">Spend per provider and model, last {CHART_DAYS} days</caption>
          <thead><tr><th scope="col">Provider / model</th><th scope="col">Spend ({CHART_DAYS} days)</th><th scope="col">Calls</th></tr></thead>
          <tbody>
            {ranked.map(([model, sum]) => <tr key={model}><td>{model}</td><td>{formatUsd(sum.cost)}</td><td>{sum.calls}</td></tr>)}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}
