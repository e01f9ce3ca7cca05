import { api } from '../api/client.js';
import type { NextFire, Overview, Run } from '../api/types.js';
import { formatDuration, formatUsd } from '../components/format.js';
import { lastHours, localDay, localHour } from '../components/hours.js';
import { Loaded, Panel } from '../components/panel.js';
import { StackedBars, type ChartSeries } from '../components/stacked-bars.js';
import { Time } from '../components/time.js';
import { hrefFor, runsHref } from '../router.js';
import { useResource } from '../use-resource.js';

const RUN_SERIES: ChartSeries[] = [
  { id: 'complete', label: 'complete' },
  { id: 'error', label: 'error' },
  { id: 'running', label: 'running' },
  { id: 'cancelled', label: 'cancelled' },
  { id: 'pending', label: 'pending' },
];

/**
 * One request answers the whole overview, so it polls like every other panel
 * (docs/decisions.md#the-console-polls-only-the-visible-panel).
 */
const loadOverview = () => api<Overview>('/overview');

export function StatusPanel() {
  const overview = useResource(loadOverview, []);
  return (
    <Panel title="Runtime status" intro="What the service is doing now and did in the last 24 hours.">
      <Loaded resource={overview}>
        {(o) => (
          <>
            <div class="overview">
              <Figure label="Runs in flight" value={String(o.runs.running + o.runs.pending)}
                note={`${o.runs.running} running, ${o.runs.pending} pending`} />
              <Figure label="Approvals waiting" value={String(o.pending_approvals)} href={hrefFor('approvals')} />
              <Figure label="Webhook queue" value={o.status.webhook_queue_depth === null ? 'off' : String(o.status.webhook_queue_depth)}
                note={o.status.webhook_queue_depth === null ? 'the webhook channel is not enabled' : 'accepted messages waiting for their run'} />
              <SpendToday spend={o.spend} />
            </div>
            <RunsChart hourly={o.runs.hourly} />
            <div class="overview">
              <RunList title="In flight" runs={o.runs.in_flight} empty="Nothing is running." />
              <RunList title="Recent errors" runs={o.runs.recent_errors} empty="No run has failed." more={hrefFor('audit', { result: 'error' })} />
              <NextFires fires={o.next_fires} />
            </div>
            <h3>Service</h3>
            <dl class="facts">
              <dt>Version</dt><dd>{o.status.version}</dd>
              <dt>Up for</dt><dd>{formatDuration(o.status.uptime_s)}</dd>
              <dt>Default provider</dt><dd>{o.status.default_provider}</dd>
              <dt>Providers available</dt><dd>{o.status.providers_available.length > 0 ? o.status.providers_available.join(', ') : 'none'}</dd>
              <dt>Tools</dt><dd>{o.status.tool_count}</dd>
              <dt>API sessions</dt><dd>{o.status.session_count}</dd>
              <dt>Stored turns</dt><dd>{o.status.memory.present ? o.status.memory.turn_count : 'no memory'}</dd>
            </dl>
          </>
        )}
      </Loaded>
    </Panel>
  );
}

function Figure({ label, value, note, href }: { label: string; value: string; note?: string; href?: string }) {
  return (
    <div class="card" data-figure={label}>
      <h3>{href ? <a href={href}>{label}</a> : label}</h3>
      <p class="figure">{value}</p>
      {note && <p class="muted">{note}</p>}
    </div>
  );
}

/** Today is the console's own day (components/format.ts); the cap is per session, so the sessions at it are counted. */
function SpendToday({ spend }: { spend: Overview['spend'] }) {
  const today = localDay(Date.now());
  const total = spend.hourly.hours.filter((h) => localDay(h.hour) === today).reduce((sum, h) => sum + h.cost_usd, 0);
  const cap = spend.max_spend_usd;
  const atCap = spend.sessions_at_cap;
  return (
    <Figure label="Spend today" value={formatUsd(total)} href={hrefFor('costs')}
      note={cap > 0 ? `cap ${formatUsd(cap)} per session; ${atCap} session${atCap === 1 ? '' : 's'} at or over it` : 'no per-session cap'} />
  );
}

function RunsChart({ hourly }: { hourly: Overview['runs']['hourly'] }) {
  const byHour = new Map<string, Map<string, number>>();
  for (const row of hourly.hours) {
    const values = byHour.get(row.hour) ?? new Map<string, number>();
    values.set(row.status, (values.get(row.status) ?? 0) + row.runs);
    byHour.set(row.hour, values);
  }
  const bars = lastHours(24).map((hour) => ({ key: hour, label: localHour(hour), values: byHour.get(hour) ?? new Map<string, number>() }));
  const total = hourly.hours.reduce((sum, row) => sum + row.runs, 0);
  return <StackedBars title={`Runs of the last 24 hours by status (${total} in all), per hour`} series={RUN_SERIES} bars={bars} format={String} />;
}

function RunList({ title, runs, empty, more }: { title: string; runs: Run[]; empty: string; more?: string }) {
  return (
    <div class="card">
      <h3>{title}</h3>
      {runs.length === 0 ? <p class="muted">{empty}</p> : (
        <ul class="cards">
          {runs.map((run) => (
            <li key={run.run_id}>
              <a class="mono" href={runsHref({ run: run.run_id })}>{run.run_id}</a> · {run.source} · <Time iso={run.created_at} />
              {run.error && <><br /><span class="muted">{run.error}</span></>}
            </li>
          ))}
        </ul>
      )}
      {more && <a href={more}>Errors in the audit trail</a>}
    </div>
  );
}

function NextFires({ fires }: { fires: NextFire[] }) {
  return (
    <div class="card">
      <h3><a href={hrefFor('jobs')}>Next job fires</a></h3>
      {fires.length === 0 ? <p class="muted">No active job is due.</p> : (
        <ul class="cards">
          {fires.map((fire) => <li key={fire.job_id}>{fire.name}: <Time iso={fire.next_run_at} /></li>)}
        </ul>
      )}
    </div>
  );
}
