import type { JobRecord as StoredJob } from '../storage/ports/jobs.js';

/** A job as the checks read it: everything but the task, which they never need. */
type JobRecord = Omit<StoredJob, 'task'>;
import type { Check } from './types.js';

/** The scheduler as the doctor sees it. */
export interface SchedulerState {
  jobs: JobRecord[];
  /** Whether this process fires jobs now; null when checked from the files (`agentd doctor`). */
  firing: boolean | null;
  /** The time the checks judge "recent" against. */
  now: number;
}

/** Misses and budget skips this recent are warnings; older ones are history. */
const RECENT_MS = 7 * 86_400_000;
/** Per kind of problem, at most this many jobs get a check of their own. */
const MAX_NAMED = 10;

const named = (job: JobRecord) => `job "${job.name}" (${job.id})`;

export function schedulerChecks(state: SchedulerState): Check[] {
  const { jobs } = state;
  if (jobs.length === 0) return [{ name: 'jobs', status: 'ok', summary: 'no scheduled jobs' }];
  const active = jobs.filter((job) => job.state === 'active');
  const out: Check[] = [jobsCheck(state, active.length), nextFires(active)];
  const recent = (at: string | null) => at !== null && state.now - Date.parse(at) <= RECENT_MS;
  out.push(...capped('missed', jobs.filter((job) => job.missed > 0 && recent(job.last_missed_at)).map((job) => ({
    name: `missed:${job.id}`,
    status: 'warn' as const,
    summary: `${named(job)} missed ${job.missed} fire(s) in total, the last due at ${job.last_missed_at}; missed fires are not replayed`,
    remediation: 'agentd was not running (or was stalled) when they fell due: run it under a supervisor that restarts it ' +
      '(systemd, launchd, a container restart policy) and look at the service log around that time',
  }))));
  out.push(...capped('failing', jobs.filter((job) => job.last_status === 'error' || job.last_status === 'interrupted').map((job) => ({
    name: `failing:${job.id}`,
    status: 'warn' as const,
    summary: `the last fire of ${named(job)} ${job.last_status === 'error' ? 'failed' : 'was interrupted'}: ${job.last_error ?? 'no reason recorded'}`,
    remediation: job.last_status === 'error'
      ? `see GET /api/v1/runs?session_id=job:${job.id}; the next fire tries again${job.next_run_at ? ` at ${job.next_run_at}` : ''}`
      : 'the service stopped between claiming the fire and starting its run; the next fire runs normally',
  }))));
  out.push(...capped('budget', jobs.filter((job) => job.last_skip_reason === 'budget' && recent(job.last_skipped_at)
    && (job.last_run_at === null || job.last_skipped_at! > job.last_run_at)).map((job) => ({
    name: `budget:${job.id}`,
    status: 'warn' as const,
    summary: `${named(job)} is skipping its fires: its session job:${job.id} has spent max_spend_usd`,
    remediation: 'raise max_spend_usd in the config, or remove the job and create it again (a new job has a new session)',
  }))));
  return out;
}

function jobsCheck(state: SchedulerState, active: number): Check {
  const counts = `${state.jobs.length} job(s): ${active} active, ${state.jobs.length - active} paused`;
  if (state.firing === null) return { name: 'jobs', status: 'ok', summary: `${counts} (read from the database; the running service fires them)` };
  if (!state.firing && active > 0) {
    return { name: 'jobs', status: 'warn', summary: `${counts}, but this service is not firing them`, remediation: 'jobs fire once the service listens (agentd serve)' };
  }
  return { name: 'jobs', status: 'ok', summary: counts };
}

function nextFires(active: JobRecord[]): Check {
  const upcoming = active.filter((job) => job.next_run_at !== null).sort((a, b) => a.next_run_at!.localeCompare(b.next_run_at!));
  if (upcoming.length === 0) return { name: 'next_fires', status: 'ok', summary: 'no job has a next fire' };
  const first = upcoming.slice(0, 3).map((job) => `"${job.name}" at ${job.next_run_at}`).join(', ');
  return { name: 'next_fires', status: 'ok', summary: `next: ${first}${upcoming.length > 3 ? ` and ${upcoming.length - 3} more` : ''}` };
}

/** The first `MAX_NAMED` checks of one kind, then one that counts the rest. */
function capped(kind: string, checks: Check[]): Check[] {
  if (checks.length <= MAX_NAMED) return checks;
  const rest = checks.length - MAX_NAMED;
  return [...checks.slice(0, MAX_NAMED), { name: `${kind}:more`, status: 'warn', summary: `${rest} more job(s) like these; see GET /api/v1/scheduler/jobs` }];
}
