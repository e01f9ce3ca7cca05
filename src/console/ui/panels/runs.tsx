import { api } from '../api/client.js';
import type { RunPage } from '../api/types.js';
import { formatTime, formatUsd } from '../components/format.js';
import { Loaded, Panel, StatusBadge, TableWrap } from '../components/panel.js';
import { hrefFor, navigate } from '../router.js';
import { useResource } from '../use-resource.js';
import { RunTrace } from './run-trace.js';

const PAGE_SIZE = 20;
const STATUSES = ['pending', 'running', 'complete', 'error', 'cancelled'];
const SOURCES = ['api', 'job', 'webhook', 'discord'];
const PREVIEW_CHARS = 100;

interface RunFilters {
  status: string;
  source: string;
  job_id: string;
}

/**
 * One session's runs (`#/runs?session_id=…`) come from the session listing, which has no filters
 * or paging (docs/resources.md#runs): its newest 100, shown as one page.
 */
async function sessionRuns(sessionId: string): Promise<RunPage> {
  const { runs } = await api<Pick<RunPage, 'runs'>>('/runs', { query: { session_id: sessionId, limit: 100 } });
  return { runs, total: runs.length, total_capped: false, has_more: false };
}

/**
 * Every run, whatever started it (docs/resources.md#runs). The filters and page are in the
 * address (`#/runs?status=error&offset=20`); `#/runs?run=<id>` opens one run's trace.
 */
export function RunsPanel({ params }: { params: URLSearchParams }) {
  const runId = params.get('run');
  if (runId) {
    return (
      <Panel title="Run trace" intro="What the run was asked and answered, each tool step with its approval, and where the time went.">
        <p><a href={hrefFor('runs')}>All runs</a></p>
        <RunTrace key={runId} runId={runId} />
      </Panel>
    );
  }
  return <RunList params={params} />;
}

function RunList({ params }: { params: URLSearchParams }) {
  const filters: RunFilters = { status: params.get('status') ?? '', source: params.get('source') ?? '', job_id: params.get('job_id') ?? '' };
  const offset = Math.max(0, Number.parseInt(params.get('offset') ?? '0', 10) || 0);
  const sessionId = params.get('session_id');
  const page = useResource(() => (sessionId ? sessionRuns(sessionId) : api<RunPage>('/runs', { query: { ...filters, limit: PAGE_SIZE, offset } })), [params.toString()]);
  const show = (values: RunFilters, at = 0) => navigate('runs', { ...values, offset: at > 0 ? String(at) : undefined });

  return (
    <Panel title="Runs" intro="Every run, newest first: asked here, fired by a job, sent by a webhook or from Discord. Open one for its trace.">
      {sessionId ? (
        <p class="row">
          <span>Runs of the session <span class="mono">{sessionId}</span></span>
          <a href={hrefFor('runs')}>Every run</a>
        </p>
      ) : (
      <form class="filters" aria-label="Run filters" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect name="status" label="Status" options={STATUSES} value={filters.status} choose={(status) => show({ ...filters, status })} />
        <FilterSelect name="source" label="Source" options={SOURCES} value={filters.source} choose={(source) => show({ ...filters, source })} />
        {filters.job_id && (
          <p class="field">
            <span>Job <span class="mono">{filters.job_id}</span></span>
            <button type="button" class="secondary" onClick={() => show({ ...filters, job_id: '' })}>Every job</button>
          </p>
        )}
      </form>
      )}
      <Loaded resource={page}>
        {(p) => (
          <>
            <p aria-live="polite">
              {p.runs.length === 0 ? 'No runs match.' : `Runs ${offset + 1}–${offset + p.runs.length} of ${p.total_capped ? `more than ${p.total}` : p.total}`}
            </p>
            {p.runs.length > 0 && (
              <TableWrap label="Runs">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Run</th><th scope="col">Created</th><th scope="col">Source</th><th scope="col">Status</th>
                      <th scope="col">Message</th><th scope="col">Provider</th><th scope="col">Cost</th>
                    </tr>
                  </thead>
                  <tbody>
                    {p.runs.map((run) => (
                      <tr key={run.run_id}>
                        <td><a class="mono" href={hrefFor('runs', { run: run.run_id })}>{run.run_id}</a></td>
                        <td>{formatTime(run.created_at)}</td>
                        <td>{run.source}</td>
                        <td><StatusBadge status={run.status} /></td>
                        <td class="task-preview">{run.message.length > PREVIEW_CHARS ? `${run.message.slice(0, PREVIEW_CHARS)}…` : run.message}</td>
                        <td>{run.resolved_provider ?? run.provider ?? '—'}</td>
                        <td>{run.cost ? formatUsd(run.cost.cost_usd) : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
            <div class="row">
              <button type="button" class="secondary" disabled={offset === 0} onClick={() => show(filters, Math.max(0, offset - PAGE_SIZE))}>Newer runs</button>
              <button type="button" class="secondary" disabled={!p.has_more} onClick={() => show(filters, offset + PAGE_SIZE)}>Older runs</button>
            </div>
          </>
        )}
      </Loaded>
    </Panel>
  );
}

function FilterSelect({ name, label, options, value, choose }: { name: string; label: string; options: string[]; value: string; choose: (value: string) => void }) {
  const id = `runs-${name}`;
  return (
    <p class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => choose(e.currentTarget.value)}>
        <option value="">any</option>
        {options.map((option) => <option key={option} value={option}>{option}</option>)}
      </select>
    </p>
  );
}
