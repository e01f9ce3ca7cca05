import { api } from '../api/client.js';
import { confirmAndRun } from '../api/controls.js';
import type { Job } from '../api/types.js';
import { formatTime } from '../components/format.js';
import { Loaded, Panel, StatusBadge, TableWrap } from '../components/panel.js';
import { ActionOutcome, useAction } from '../components/use-action.js';
import { useResource } from '../use-resource.js';
import { JobForm } from './job-form.js';

export function JobsPanel() {
  const jobs = useResource(() => api<{ jobs: Job[] }>('/scheduler/jobs'), []);
  const action = useAction();

  /** Pause, resume and remove go through the operator controls: confirmed, then audited. */
  const act = (work: () => Promise<unknown>, done: string) => action.run(async () => {
    if ((await work()) === null) return null;
    await jobs.reload();
    return done;
  });
  const toggle = (job: Job) => {
    const pause = job.state === 'active';
    const verb = pause ? 'pause' : 'resume';
    return act(
      () => confirmAndRun(`scheduler.${verb}_job`, job.id, `${verb}-job:${job.id}`, `${pause ? 'Pause' : 'Resume'} the job "${job.name}"?`),
      `Job "${job.name}" ${pause ? 'paused' : 'resumed'}.`,
    );
  };
  const remove = (job: Job) => act(async () => {
    if (!window.confirm(`Remove the job "${job.name}"? Its schedule is deleted for good.`)) return null;
    return api(`/scheduler/jobs/${encodeURIComponent(job.id)}`, { method: 'DELETE', body: { confirm: `remove-job:${job.id}` } });
  }, `Job "${job.name}" removed.`);

  return (
    <Panel title="Scheduled jobs" intro="Jobs fire runs on their own sessions. Missed fires (while the service was down) are not replayed.">
      <ActionOutcome action={action} />
      <Loaded resource={jobs}>
        {({ jobs: list }) => list.length === 0 ? <p class="muted">No scheduled jobs.</p> : (
          <TableWrap label="Scheduled jobs">
            <table>
              <thead>
                <tr>
                  <th scope="col">Job</th><th scope="col">Schedule</th><th scope="col">State</th><th scope="col">Next fire</th>
                  <th scope="col">Last fire</th><th scope="col">Runs</th><th scope="col">Missed</th><th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((job) => (
                  <tr key={job.id}>
                    <td>{job.name}<br /><span class="mono muted">{job.id}</span></td>
                    <td>{job.schedule}{job.timezone !== 'UTC' ? ` (${job.timezone})` : ''}{job.active_hours ? `, active ${job.active_hours}` : ''}</td>
                    <td><StatusBadge status={job.state} /></td>
                    <td>{formatTime(job.next_run_at)}</td>
                    <td>{formatTime(job.last_run_at)}{job.last_status ? ` (${job.last_status})` : ''}</td>
                    <td>{job.run_count}</td>
                    <td>{job.missed}{job.last_missed_at ? `, last ${formatTime(job.last_missed_at)}` : ''}</td>
                    <td class="actions">
                      <button type="button" class="secondary" onClick={() => toggle(job)}>{job.state === 'active' ? 'Pause' : 'Resume'}</button>
                      <button type="button" class="danger" onClick={() => remove(job)}>Remove</button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Loaded>
      <JobForm created={(job) => action.run(async () => {
        await jobs.reload();
        return `Job "${job.name}" created.`;
      })} />
    </Panel>
  );
}
