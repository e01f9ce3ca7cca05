import { censor } from '../security/secrets/secrets.js';
import { TASK_HEAD_CHARS, type JobListing, type JobRecord, type JobSummary } from '../storage/ports/jobs.js';

/** Characters of a task a list shows; the rest is on GET /scheduler/jobs/{id}. */
export const TASK_PREVIEW_CHARS = 200;

type TextFields = Pick<JobRecord, 'name' | 'description'>;

/**
 * The operator's text passed through the secret censor, as a chat message is before it is stored:
 * a key pasted into a job's name, description or task is not kept, listed, labelled or audited.
 * The job's runs are asked the censored task (a credential belongs in the config, not in a task).
 */
export function censorJobText<T extends TextFields & { task: string }>(job: T): T {
  return { ...job, name: censor(job.name), description: job.description === null ? null : censor(job.description), task: censor(job.task) };
}

/** A stored job as it is shown: censored again, for jobs stored before their text was censored. */
export const jobView = (job: JobRecord): JobRecord => censorJobText(job);

/**
 * A listed job: its task as at most `TASK_PREVIEW_CHARS` characters, censored before it is cut (so
 * a key is not cut into a fragment the censor no longer recognises), and when cut followed by
 * `… (<n> characters in all)`.
 */
export function jobSummary(listing: JobListing): JobSummary {
  const { task_head: head, task_chars: chars, ...job } = listing;
  const shown = Array.from(censor(head));
  const cut = chars > TASK_HEAD_CHARS || shown.length > TASK_PREVIEW_CHARS;
  const preview = cut ? `${shown.slice(0, TASK_PREVIEW_CHARS).join('')}… (${chars} characters in all)` : shown.join('');
  return {
    ...job,
    name: censor(job.name),
    description: job.description === null ? null : censor(job.description),
    task_preview: preview,
    task_chars: chars,
  };
}
