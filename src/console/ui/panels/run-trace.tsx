import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { FINISHED_STATES, followRun, viewOfRecord, type RunView } from '../api/run-stream.js';
import type { RunRecord, TraceApproval, TraceStep } from '../api/types.js';
import { formatTime, formatUsd } from '../components/format.js';
import { Markdown } from '../components/markdown-view.js';
import { Loaded, StatusBadge } from '../components/panel.js';
import { RunProgress } from '../components/run-progress.js';
import { hrefFor } from '../router.js';
import { useResource } from '../use-resource.js';

/**
 * One run's trace (docs/resources.md#runs). A run still going is followed on its stream, so its
 * steps and answer appear as they happen; once it ends, the stored record is read again.
 */
export function RunTrace({ runId }: { runId: string }) {
  const record = useResource(() => api<RunRecord>(`/runs/${encodeURIComponent(runId)}`), [runId]);
  const [live, setLive] = useState<RunView | null>(null);
  const running = record.data !== undefined && !FINISHED_STATES.has(viewOfRecord(record.data).state);
  useEffect(() => {
    if (!running || !record.data) return undefined;
    setLive(viewOfRecord(record.data));
    return followRun(runId, (change) => setLive((view) => (view ? change(view) : view)), () => void record.reload());
  }, [running, runId]);

  return (
    <Loaded resource={record}>
      {(run) => (
        <article class="trace" aria-labelledby="trace-title">
          <h3 id="trace-title">Run <span class="mono">{run.run_id}</span> <StatusBadge status={run.status} /></h3>
          <TraceLinks run={run} />
          <Facts run={run} />
          <h4>Message</h4>
          <p class="turn-text">{run.message}</p>
          {running && live ? <RunProgress run={live} /> : (
            <>
              {run.response !== null && (<><h4>Answer</h4><Markdown class="answer" text={run.response} /></>)}
              {run.error !== null && <p class="error">{run.error}</p>}
            </>
          )}
          <Steps steps={run.trace?.steps} toolsUsed={run.tools_used} />
          <Approvals approvals={run.trace?.approvals} />
        </article>
      )}
    </Loaded>
  );
}

function TraceLinks({ run }: { run: RunRecord }) {
  return (
    <ul class="trace-links">
      {run.source === 'api' && <li><a href={hrefFor('sessions', { id: run.session_id })}>Its session</a></li>}
      <li><a href={hrefFor('memory', { session_id: run.session_id })}>Its session's transcript</a></li>
      {run.job_id && (
        <>
          <li><a href={hrefFor('jobs')}>Scheduled jobs</a> (job <span class="mono">{run.job_id}</span>)</li>
          <li><a href={hrefFor('runs', { job_id: run.job_id })}>Every run of this job</a></li>
        </>
      )}
      <li><a href={hrefFor('approvals')}>Approvals</a></li>
      <li><a href={hrefFor('audit', { task_id: run.run_id })}>Its audit events</a></li>
    </ul>
  );
}

function Facts({ run }: { run: RunRecord }) {
  const timings = run.trace?.timings;
  const ms = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${value} ms`);
  return (
    <dl class="facts">
      <dt>Source</dt><dd>{run.source}</dd>
      <dt>Session</dt><dd class="mono">{run.session_id}</dd>
      <dt>Provider</dt>
      <dd>{run.resolved_provider ?? run.provider ?? '—'}{run.model ? ` (${run.model})` : ''}{run.provider === null ? ', the default' : ''}</dd>
      <dt>Tokens</dt><dd>{run.cost ? `${run.cost.prompt_tokens} in, ${run.cost.completion_tokens} out` : '—'}</dd>
      <dt>Cost</dt><dd>{run.cost ? formatUsd(run.cost.cost_usd) : '—'}</dd>
      <dt>Created</dt><dd>{formatTime(run.created_at)}</dd>
      <dt>Started</dt><dd>{formatTime(run.started_at)}</dd>
      <dt>First token</dt><dd>{formatTime(run.first_token_at ?? timings?.first_token_at)}</dd>
      <dt>Finished</dt><dd>{formatTime(run.finished_at)}</dd>
      <dt>Queued for</dt><dd>{ms(timings?.queue_ms)}</dd>
      <dt>Took</dt><dd>{ms(timings?.total_ms)}</dd>
    </dl>
  );
}

function Steps({ steps, toolsUsed }: { steps: TraceStep[] | undefined; toolsUsed: string[] | null }) {
  if (steps === undefined) {
    return <p class="muted">Tools used: {toolsUsed && toolsUsed.length > 0 ? toolsUsed.join(', ') : 'none'}.</p>;
  }
  return (
    <>
      <h4>Tool steps</h4>
      {steps.length === 0 ? <p class="muted">No tool was called.</p> : (
        <ol class="trace-steps" aria-label="Tool steps">
          {steps.map((step) => (
            <li key={step.call_id} class="card">
              <p>
                <strong class="mono">{step.tool}</strong>{' '}
                <StatusBadge status={step.is_error ? 'error' : step.finished_at === null ? 'running' : 'ok'} />{' '}
                {step.duration_ms !== null && step.duration_ms !== undefined ? `${step.duration_ms} ms` : ''}
              </p>
              <pre class="trace-json" aria-label="Arguments">{JSON.stringify(step.arguments ?? {}, null, 2)}</pre>
              {step.error && <p class="error">{step.error}</p>}
              {step.result_preview !== null && step.result_preview !== undefined && (
                <>
                  <p class="muted">Result{step.result_truncated ? ' (shortened)' : ''}:</p>
                  <pre class="trace-json">{step.result_preview}</pre>
                </>
              )}
              {step.approval && (
                <p data-approval={step.approval.status}>
                  Approval <span class="mono">{step.approval.approval_id}</span>: <StatusBadge status={step.approval.status} />
                  {step.approval.decided_by ? ` by ${step.approval.decided_by}` : ''}
                  {step.approval.decided_at ? ` at ${formatTime(step.approval.decided_at)}` : ''}
                </p>
              )}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

function Approvals({ approvals }: { approvals: TraceApproval[] | undefined }) {
  if (!approvals || approvals.length === 0) return null;
  return (
    <>
      <h4>Approvals</h4>
      <ul class="trace-approvals" aria-label="Approvals of this run">
        {approvals.map((approval) => (
          <li key={approval.approval_id}>
            <StatusBadge status={approval.status} /> {approval.kind}: <code class="mono">{approval.subject}</code>, asked {formatTime(approval.created_at)}
            {approval.decided_at ? `, decided ${formatTime(approval.decided_at)}` : ''}{approval.decided_by ? ` by ${approval.decided_by}` : ''}
          </li>
        ))}
      </ul>
    </>
  );
}
