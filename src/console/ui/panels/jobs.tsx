import { useEffect, useRef, useState } from 'preact/hooks';
import { api, failureMessage } from '../api/client.js';
import { confirmAndRun } from '../api/controls.js';
import type { Job, JobPage, JobSummary } from '../api/types.js';
import { Time } from '../components/time.js';
import { Loaded, Panel, StatusBadge, TableWrap } from '../components/panel.js';
import { offsetParam, Pager } from '../components/pager.js';
import { ActionOutcome, useAction } from '../components/use-action.js';
import { navigate, runsHref } from '../router.js';
import { useResource } from '../use-resource.js';
import { JobForm } from './job-form.js';

const PAGE_SIZE = 50;

/** The page in the address (`#/jobs?offset=50`), so a link restores it. */
export function JobsPanel({ params }: { params: URLSearchParams }) {
  const offset = offsetParam(params);
  const jobs = useResource(() => api<JobPage>('/scheduler/jobs', { query: { limit: PAGE_SIZE, offset } }), [offset]);
  const [selected, setSelected] = useState<string | null>(null);
  const action = useAction();
  const show = (at: number) => navigate('jobs', { offset: at > 0 ? String(at) : undefined });

  /** Pause, resume and remove go through the operator controls: confirmed, then audited. */
  const act = (work: () => Promise<unknown>, done: string) => action.run(async () => {
    if ((await work()) === null) return null;
    await jobs.reload();
    return done;
  });
  const toggle = (job: JobSummary) => {
    const pause = job.state === 'active';
    const verb = pause ? 'pause' : 'resume';
    return act(
      () => confirmAndRun(`scheduler.${verb}_job`, job.id, `${verb}-job:${job.id}`, `${pause ? 'Pause' : 'Resume'} the job "${job.name}"?`),
      `Job "${job.name}" ${pause ? 'paused' : 'resumed'}.`,
    );
  };
  const remove = (job: JobSummary) => act(async () => {
    if (!window.confirm(`Remove the job "${job.name}"? Its schedule is deleted for good.`)) return null;
    return api(`/scheduler/jobs/${encodeURIComponent(job.id)}`, { method: 'DELETE', body: { confirm: `remove-job:${job.id}` } });
  }, `Job "${job.name}" removed.`);

  return (
    <Panel title="Scheduled jobs" intro="Jobs fire runs on their own sessions. Missed fires (while the service was down) are not replayed.">
      <ActionOutcome action={action} />
      <Loaded resource={jobs}>
        {({ jobs: list, total, has_more: more }) => total === 0 ? <p class="muted">No scheduled jobs.</p> : (
          <div class="audit-layout">
            <div>
              <p aria-live="polite">{list.length === 0 ? `No jobs on this page (${total} in all).` : `Jobs ${offset + 1}–${offset + list.length} of ${total}`}</p>
              {list.length > 0 && (
                <TableWrap label="Scheduled jobs">
                  <table class="stack-table">
                    <thead>
                      <tr>
                        <th scope="col">Job</th><th scope="col">Task</th><th scope="col">Schedule</th><th scope="col">State</th><th scope="col">Next fire</th>
                        <th scope="col">Last fire</th><th scope="col">Runs</th><th scope="col">Missed</th><th scope="col">Actions</th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((job) => (
                        <tr key={job.id} class={selected === job.id ? 'selected' : undefined}>
                          <td data-label="Job">{job.name}<br /><a class="mono" href={runsHref({ job_id: job.id })} title={`Runs of job ${job.name}`}>{job.id}</a></td>
                          <td class="task-preview" data-label="Task">
                            {job.task_preview}
                            <br /><button type="button" class="link" onClick={() => setSelected(job.id)} aria-label={`Whole task of job ${job.name}`}>Whole task</button>
                          </td>
                          <td data-label="Schedule">{job.schedule}{job.timezone !== 'UTC' ? ` (${job.timezone})` : ''}{job.active_hours ? `, active ${job.active_hours}` : ''}</td>
                          <td data-label="State"><StatusBadge status={job.state} /></td>
                          <td data-label="Next fire"><Time iso={job.next_run_at} /></td>
                          <td data-label="Last fire">{job.last_run_id ? <a href={runsHref({ run: job.last_run_id })}><Time iso={job.last_run_at} /></a> : <Time iso={job.last_run_at} />}{job.last_status ? ` (${job.last_status})` : ''}</td>
                          <td data-label="Runs">{job.run_count}</td>
                          <td data-label="Missed">{job.missed}{job.last_missed_at ? <>, last <Time iso={job.last_missed_at} /></> : null}</td>
                          <td class="actions" data-label="Actions">
                            <button type="button" class="secondary" onClick={() => toggle(job)}>{job.state === 'active' ? 'Pause' : 'Resume'}</button>
                            <button type="button" class="danger" onClick={() => remove(job)}>Remove</button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
              <Pager offset={offset} size={PAGE_SIZE} more={more} noun="jobs" show={show} />
            </div>
            {selected !== null && <JobDetail id={selected} close={() => setSelected(null)} />}
          </div>
        )}
      </Loaded>
      <JobForm created={(job) => action.run(async () => {
        await jobs.reload();
        return `Job "${job.name}" created.`;
      })} />
    </Panel>
  );
}

/** One job with its whole task (the list only has a preview), read when it is opened. */
function JobDetail({ id, close }: { id: string; close: () => void }) {
  const [job, setJob] = useState<{ id: string; job?: Job; error?: string } | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    let current = true;
    api<Job>(`/scheduler/jobs/${encodeURIComponent(id)}`)
      .then((found) => current && setJob({ id, job: found }), (failure: unknown) => current && setJob({ id, error: failureMessage(failure) }));
    return () => {
      current = false;
    };
  }, [id]);
  // Focus moves to the panel it opened, so a keyboard user lands on what they asked for.
  useEffect(() => heading.current?.focus(), [id]);
  const shown = job?.id === id ? job : null;
  return (
    <aside class="card detail" aria-labelledby="job-detail-title">
      <h3 id="job-detail-title" tabIndex={-1} ref={heading}>{shown?.job?.name ?? 'Job'}</h3>
      {shown === null ? <p class="muted">Loading…</p> : shown.error !== undefined ? <p role="alert">{shown.error}</p> : (
        <>
          {shown.job!.description !== null && <p>{shown.job!.description}</p>}
          <h4>Task</h4>
          <pre class="job-task">{shown.job!.task}</pre>
        </>
      )}
      <button type="button" class="secondary" onClick={close}>Close task</button>
    </aside>
  );
}
