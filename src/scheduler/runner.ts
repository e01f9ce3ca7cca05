import { AgentError, failureMessage } from '../contracts/agent-errors.js';
import { isFinished, type RunRecord } from '../storage/ports/runs.js';
import type { Logger } from '../log.js';
import { newTimeOrderedId } from '../security/ids/tokens.js';
import { parseActiveHours, withinActiveHours } from './active-hours.js';
import type { JobAudit } from './audit.js';
import { planFire } from './plan.js';
import { jobTimeline } from './timeline.js';
import { jobSessionId, type JobRunPort } from './types.js';
import { UNSETTLED_STATUSES, type ClaimedFire, type FireEnd, type JobRecord, type SkipReason, type JobStore } from '../storage/ports/jobs.js';

/** How long a claimed fire may go without its run before it counts as interrupted (its runner died). */
export const STALE_CLAIM_MS = 60_000;
/** How often fires whose runner is gone (a previous process) are looked for and settled. */
const RECONCILE_INTERVAL_MS = 30_000;
/** Longest wait between two looks at the store: jobs created or changed elsewhere are seen this fast. */
const POLL_INTERVAL_MS = 1_000;
/** How long shutdown waits for the outcomes of its last runs to be recorded. */
const DRAIN_GRACE_MS = 2_000;

export interface JobRunnerOptions {
  store: JobStore;
  runs: JobRunPort;
  audit: JobAudit;
  log: Logger;
  now: () => number;
  /** Most jobs handled in one pass (the job limit). */
  maxDue: number;
}

/** What a pass did, for when the next one runs. */
export interface PassResult {
  /** The clock the pass judged due jobs by. */
  at: number;
  /**
   * Whether it claimed an occurrence. Only its own claims count as progress: a job whose claim keeps
   * failing without an error (another runner keeps winning, or the store never matches) gets no
   * pass at once from here, so nothing can spin.
   */
  claimed: boolean;
  /** Whether one of them could not be fired (an error, logged). */
  failed: boolean;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * Fires due jobs. Each fire is claimed in the store first (a compare-and-set on the job's
 * `next_run_at` that also moves it on), so any number of runners over one store fire each
 * occurrence once; only the claim's winner starts the run, records skips and misses, and audits.
 * A claimed fire is `starting` until its run exists: if the runner dies in between, another runner
 * (or the next start) finds it and records it as `interrupted` — never a silent double or miss.
 */
export class JobRunner {
  /** Runs this runner started and has not seen end, by job id (at most one per job). */
  private readonly inFlight = new Map<string, string>();
  /** Pending records of those runs' outcomes (shutdown waits for them). */
  private readonly outcomes = new Set<Promise<void>>();
  private startedAt: number;
  private passes: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;
  private lastReconcile = -Infinity;

  constructor(private readonly options: JobRunnerOptions) {
    this.startedAt = options.now();
  }

  /** Whether `start()` polls and `stop()` has not been called. */
  get firing(): boolean {
    return this.started && !this.stopped;
  }

  /** Polls the store from now on; occurrences that fell due before this moment were missed. */
  start(): void {
    if (this.stopped || this.started) return;
    this.started = true;
    this.startedAt = this.options.now();
    this.loop();
  }

  /**
   * One pass: settles orphaned fires (every `RECONCILE_INTERVAL_MS`), then fires every due job.
   * Passes never overlap; each waits for the one before it.
   */
  tick(): Promise<PassResult> {
    const pass = this.passes.then(() => this.pass());
    this.passes = pass.then(() => undefined, () => undefined);
    return pass;
  }

  /** No new fires from now; resolves when the pass in progress is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.passes;
  }

  /** Waits (bounded) until the outcomes of runs already ended are recorded; call after the runtime closed. */
  async drain(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.outcomes]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_GRACE_MS))),
    ]);
    clearTimeout(timer);
  }

  private loop(): void {
    const next = async (): Promise<number> => {
      const pass = await this.tick();
      // Stopped during the pass: the store may be closing.
      if (this.stopped) return POLL_INTERVAL_MS;
      const due = await this.options.store.nextDue();
      if (due === null) return POLL_INTERVAL_MS;
      const dueAt = Date.parse(due);
      const wait = dueAt - this.options.now();
      if (wait > 0) return Math.min(wait, POLL_INTERVAL_MS);
      // Due already. It fell due during the pass, or the pass moved a late job on to an occurrence
      // that is due too: go again at once — waiting a poll would make it a poll late. A job still
      // due after a pass that failed to fire it (logged) waits a poll before it is tried again.
      return dueAt > pass.at || (pass.claimed && !pass.failed) ? 0 : POLL_INTERVAL_MS;
    };
    next().then(
      (wait) => this.rearm(wait),
      (error: unknown) => {
        this.options.log.error(`scheduler: ${(error as Error)?.message ?? String(error)}`);
        this.rearm(POLL_INTERVAL_MS);
      },
    );
  }

  private rearm(wait: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.loop(), wait);
    // The HTTP listener keeps the process alive; the scheduler alone must not.
    this.timer.unref();
  }

  private async pass(): Promise<PassResult> {
    const now = this.options.now();
    if (this.stopped) return { at: now, claimed: false, failed: false };
    if (now - this.lastReconcile >= RECONCILE_INTERVAL_MS) {
      this.lastReconcile = now;
      await Promise.all((await this.options.store.unsettled()).filter((job) => !this.inFlight.has(job.id)).map((job) => this.settleOrphan(job, now)));
    }
    const due = await this.options.store.due(new Date(now).toISOString(), this.options.maxDue);
    let failed = false;
    const won = await Promise.all(due.map((job) => this.fire(job, now).catch((error: unknown) => {
      failed = true;
      this.options.log.error(`scheduler: job ${job.id} could not fire: ${(error as Error)?.stack ?? String(error)}`);
      return false;
    })));
    return { at: now, claimed: won.includes(true), failed };
  }

  /** True when this runner claimed the occurrence (false: another runner did, or the job changed). */
  private async fire(job: JobRecord, now: number): Promise<boolean> {
    const { store, audit } = this.options;
    const plan = planFire(jobTimeline(job), Date.parse(job.next_run_at!), now, this.startedAt);
    const decision = plan.fireAt === null ? null : await this.decide(job, plan.fireAt, now);
    const claimed = await store.claim(job.id, {
      expected: job.next_run_at!,
      next_run_at: iso(plan.next),
      missed: plan.missed,
      last_missed_at: iso(plan.lastMissedAt),
      fire: decision?.fire ?? null,
    });
    // Another runner took this occurrence, or the job was paused or removed meanwhile.
    if (!claimed) return false;
    if (plan.missed > 0) await audit.missed(job, plan.missed, plan.missedExact, iso(plan.lastMissedAt), claimed.next_run_at);
    const fire = decision?.fire;
    if (fire?.status === 'skipped') await audit.skipped(job, fire.reason, iso(plan.fireAt)!, decision!.note);
    if (fire?.status === 'starting') await this.startRun(claimed, fire.run_id, iso(plan.fireAt)!);
    return true;
  }

  /** Whether and how the occurrence at `due` fires; decided before the claim, so the claim records it. */
  private async decide(job: JobRecord, due: number, now: number): Promise<{ fire: ClaimedFire; note: string | null }> {
    const at = new Date(now).toISOString();
    const skip = (reason: SkipReason, note: string | null = null) => ({ fire: { at, status: 'skipped' as const, reason }, note });
    if (await this.previousInFlight(job, now)) return skip('in_flight', `run ${job.last_run_id} is still in flight`);
    if (job.active_hours !== null && !withinActiveHours(parseActiveHours(job.active_hours), due, job.timezone)) {
      return skip('active_hours', `outside ${job.active_hours} ${job.timezone}`);
    }
    try {
      await this.options.runs.checkBudget(jobSessionId(job.id), job.provider);
    } catch (error) {
      if (error instanceof AgentError && error.code === 'budget_exceeded') return skip('budget', error.message);
      // Any other refusal (an unavailable provider) is the run's to report, as its error.
    }
    return { fire: { at, status: 'starting', run_id: newTimeOrderedId('run') }, note: null };
  }

  /** Whether the job's previous fire still has a run in flight (here or on another runner). */
  private async previousInFlight(job: JobRecord, now: number): Promise<boolean> {
    if (this.inFlight.has(job.id)) return true;
    if (job.last_status === null || !UNSETTLED_STATUSES.has(job.last_status)) return false;
    return !(await this.settleOrphan(job, now));
  }

  /**
   * Settles a fire that another runner (or a previous process) claimed: from its run when that has
   * ended, as `interrupted` when it never got a run within `STALE_CLAIM_MS`. True when it is settled.
   */
  private async settleOrphan(job: JobRecord, now: number): Promise<boolean> {
    const runId = job.last_run_id!;
    const run = await this.options.runs.getRun(runId);
    if (run && !isFinished(run.status)) return false;
    if (!run && now - Date.parse(job.last_run_at!) < STALE_CLAIM_MS) return false;
    if (!run) {
      await this.record(job, runId, { status: 'interrupted', error: 'the service stopped after claiming the fire and before its run started' });
      return true;
    }
    // Its runner died after the run was created but before saying so: the run counts.
    await this.options.store.settle(job.id, runId, { status: 'running' });
    await this.record(job, runId, endOf(run));
    return true;
  }

  private async startRun(job: JobRecord, runId: string, scheduledFor: string): Promise<void> {
    const { runs, audit } = this.options;
    this.inFlight.set(job.id, runId);
    let run: RunRecord;
    try {
      run = await runs.startChannelRun({
        sessionId: jobSessionId(job.id), message: job.task, provider: job.provider, runId, source: 'job', jobId: job.id,
      });
    } catch (error) {
      this.release(job.id, runId);
      if (!failureMessage(error).expected) this.options.log.error(`scheduler: run of job ${job.id} failed to start: ${(error as Error)?.stack ?? String(error)}`);
      await this.record(job, runId, refusal(error));
      return;
    }
    // The fire's own event is committed before `running` counts the run: a reader who finds the run
    // counted on the job finds its event in the trail too (the event goes to the audit log, the count
    // to the job, and on PostgreSQL the two do not share a commit). The end is recorded (and
    // audited) after both, and the job stays in flight here until the run has ended, whatever
    // became of the writes.
    const announced = audit.fired(job, runId, scheduledFor, run.resolved_provider)
      .then(() => this.options.store.settle(job.id, runId, { status: 'running' }));
    const outcome = Promise.allSettled([announced, runs.whenRunFinished(runId)])
      .then(([, finished]) => {
        // Ended and unwound: the next fire may start at once, even before this end is recorded.
        this.release(job.id, runId);
        if (finished.status === 'rejected') throw finished.reason;
        return this.record(job, runId, finished.value ? endOf(finished.value) : { status: 'interrupted', error: `run ${runId} was not found` });
      })
      .catch((error: unknown) => this.options.log.error(`scheduler: could not record the end of run ${runId} of job ${job.id}: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        this.release(job.id, runId);
        this.outcomes.delete(outcome);
      });
    this.outcomes.add(outcome);
    await announced;
  }

  /** Forgets the job's run in flight if it is still `runId` (a later fire may have started another). */
  private release(jobId: string, runId: string): void {
    if (this.inFlight.get(jobId) === runId) this.inFlight.delete(jobId);
  }

  /** Stores how the fire ended and audits it, once: only the write that changes the job audits. */
  private async record(job: JobRecord, runId: string, end: FireEnd): Promise<void> {
    if (await this.options.store.settle(job.id, runId, end)) await this.options.audit.ended(job, runId, end);
  }
}

function endOf(run: RunRecord): FireEnd {
  if (run.status === 'complete' || run.status === 'cancelled') return { status: run.status };
  return { status: 'error', error: run.error ?? `the run ended ${run.status}` };
}

/** Why a claimed fire got no run (the runtime refused to start it). */
function refusal(error: unknown): FireEnd {
  if (error instanceof AgentError && error.code === 'shutting_down') return { status: 'interrupted', error: 'the service was shutting down' };
  return { status: 'error', error: failureMessage(error).message };
}
