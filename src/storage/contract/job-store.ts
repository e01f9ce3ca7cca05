import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TASK_HEAD_CHARS, type FireClaim, type JobRecord, type JobStore, type NewJob } from '../ports/jobs.js';

/**
 * The behaviour every `JobStore` backend must have, through the interface only. `second` is another
 * handle on the same database (another connection or pool), as a second replica would hold.
 */
export type OpenJobStore = () => Promise<{ store: JobStore; second: JobStore; close(): Promise<void> }>;

const T0 = '2026-01-01T00:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const newJob = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
  id, name: `job ${id}`, description: null, schedule: 'every 1 minutes', task: 'what is 2+2?', provider: null,
  active_hours: null, timezone: 'UTC', created_at: T0, next_run_at: at(60), ...extra,
});

const claim = (expected: string, extra: Partial<FireClaim> = {}): FireClaim => ({
  expected, next_run_at: at(120), missed: 0, last_missed_at: null, fire: null, ...extra,
});

export function describeJobStore(backend: string, open: OpenJobStore): void {
  describe(`JobStore contract (${backend})`, () => {
    let jobs: JobStore;
    let second: JobStore;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store: jobs, second, close } = await open());
    });
    afterEach(async () => {
      await close();
    });

    it('creates an active job with empty fire history and reads it back; unknown ids are null', async () => {
      const created = await jobs.create(newJob('job_a', { description: 'd', provider: 'offline', active_hours: '09:00-17:00', timezone: 'Europe/Paris' }), 10);
      const expected: JobRecord = {
        ...newJob('job_a', { description: 'd', provider: 'offline', active_hours: '09:00-17:00', timezone: 'Europe/Paris' }),
        state: 'active', last_run_at: null, last_status: null, last_run_id: null, last_error: null, run_count: 0,
        skipped: 0, last_skipped_at: null, last_skip_reason: null, missed: 0, last_missed_at: null,
      };
      expect(created).toEqual(expected);
      expect(await jobs.get('job_a')).toEqual(expected);
      expect(await second.get('job_a')).toEqual(expected);
      expect(await jobs.get('job_unknown')).toBeNull();
    });

    it('lists jobs oldest first, a page at a time, with the total', async () => {
      for (const id of ['job_c', 'job_a', 'job_b', 'job_e', 'job_d']) await jobs.create(newJob(id), 10);
      const ids = async (limit: number, offset: number) => {
        const page = await jobs.list({ limit, offset });
        return { ids: page.jobs.map((job) => job.id), total: page.total };
      };
      expect(await ids(10, 0)).toEqual({ ids: ['job_c', 'job_a', 'job_b', 'job_e', 'job_d'], total: 5 });
      expect(await ids(2, 0)).toEqual({ ids: ['job_c', 'job_a'], total: 5 });
      expect(await ids(2, 2)).toEqual({ ids: ['job_b', 'job_e'], total: 5 });
      expect(await ids(2, 4)).toEqual({ ids: ['job_d'], total: 5 });
      // Past the end: no jobs, still the total.
      expect(await second.list({ limit: 2, offset: 5 })).toEqual({ jobs: [], total: 5 });
      expect(await second.list({ limit: 2, offset: 1_000_000 })).toEqual({ jobs: [], total: 5 });
      await jobs.remove('job_a');
      expect(await ids(2, 0)).toEqual({ ids: ['job_c', 'job_b'], total: 4 });
    });

    it('lists a task only as its head and its length in characters, never the whole task', async () => {
      // Astral characters count once each (code points), as in both databases.
      const task = `${'🙂'.repeat(10)}${'x'.repeat(TASK_HEAD_CHARS * 3)}`;
      await jobs.create(newJob('job_long', { task }), 10);
      await jobs.create(newJob('job_short', { task: 'short task' }), 10);
      const { jobs: [long, short] } = await jobs.list({ limit: 10, offset: 0 });
      expect(long).not.toHaveProperty('task');
      expect(long).toMatchObject({ id: 'job_long', task_head: Array.from(task).slice(0, TASK_HEAD_CHARS).join(''), task_chars: 10 + TASK_HEAD_CHARS * 3 });
      const { task: _task, ...rest } = (await jobs.get('job_short'))!;
      expect(short).toEqual({ ...rest, task_head: 'short task', task_chars: 10 });
      expect((await jobs.get('job_long'))!.task).toBe(task);
    });

    it('refuses a job past the limit, exactly, also when creations race from two handles', async () => {
      expect(await jobs.create(newJob('job_1'), 2)).not.toBeNull();
      const raced = await Promise.all([jobs.create(newJob('job_2'), 2), second.create(newJob('job_3'), 2), jobs.create(newJob('job_4'), 2)]);
      expect(raced.filter((job) => job !== null)).toHaveLength(1);
      expect((await jobs.list({ limit: 10, offset: 0 })).total).toBe(2);
      expect(await jobs.create(newJob('job_5'), 3)).not.toBeNull();
    });

    it('finds due active jobs earliest first, and the earliest next fire', async () => {
      await jobs.create(newJob('job_late', { next_run_at: at(30) }), 10);
      await jobs.create(newJob('job_early', { next_run_at: at(10) }), 10);
      await jobs.create(newJob('job_future', { next_run_at: at(90) }), 10);
      await jobs.create(newJob('job_paused', { next_run_at: at(5) }), 10);
      await jobs.pause('job_paused');
      expect((await jobs.due(at(30), 10)).map((job) => job.id)).toEqual(['job_early', 'job_late']);
      expect((await jobs.due(at(30), 1)).map((job) => job.id)).toEqual(['job_early']);
      expect(await jobs.due(at(9), 10)).toEqual([]);
      expect(await jobs.nextDue()).toBe(at(10));
      await jobs.remove('job_early');
      await jobs.remove('job_late');
      await jobs.remove('job_future');
      expect(await jobs.nextDue()).toBeNull();
    });

    it('claims an occurrence only while next_run_at is the expected value, and moves it on', async () => {
      await jobs.create(newJob('job_a'), 10);
      const claimed = await jobs.claim('job_a', claim(at(60), { missed: 3, last_missed_at: at(50) }));
      expect(claimed).toMatchObject({ next_run_at: at(120), missed: 3, last_missed_at: at(50), last_status: null });
      // A stale reader's claim of the same occurrence fails and changes nothing.
      expect(await jobs.claim('job_a', claim(at(60), { next_run_at: at(999), missed: 5 }))).toBeNull();
      expect(await second.claim('job_a', claim(at(60)))).toBeNull();
      expect(await jobs.get('job_a')).toEqual(claimed);
      // Missed fires add up; a claim without misses keeps the time of the last one.
      expect(await jobs.claim('job_a', claim(at(120), { next_run_at: null, missed: 2, last_missed_at: at(110) }))).toMatchObject({ missed: 5, last_missed_at: at(110), next_run_at: null });
      expect(await jobs.due(at(10_000), 10)).toEqual([]);
      expect(await jobs.claim('job_unknown', claim(at(60)))).toBeNull();
    });

    it('a claim that starts a run marks it starting until settled; settling counts the run once', async () => {
      await jobs.create(newJob('job_a'), 10);
      const started = await jobs.claim('job_a', claim(at(60), { fire: { at: at(61), status: 'starting', run_id: 'run_1' } }));
      expect(started).toMatchObject({ last_run_at: at(61), last_status: 'starting', last_run_id: 'run_1', run_count: 0 });
      expect((await jobs.unsettled()).map((job) => job.id)).toEqual(['job_a']);
      expect(await jobs.settle('job_a', 'run_other', { status: 'running' })).toBe(false);
      expect(await jobs.settle('job_a', 'run_1', { status: 'running' })).toBe(true);
      expect(await second.settle('job_a', 'run_1', { status: 'running' })).toBe(false);
      expect(await jobs.get('job_a')).toMatchObject({ last_status: 'running', run_count: 1 });
      expect(await jobs.settle('job_a', 'run_1', { status: 'error', error: 'provider down' })).toBe(true);
      expect(await jobs.settle('job_a', 'run_1', { status: 'complete' })).toBe(false);
      expect(await jobs.get('job_a')).toMatchObject({ last_status: 'error', last_error: 'provider down', run_count: 1 });
      expect(await jobs.unsettled()).toEqual([]);
      // The next fire clears the last error.
      expect(await jobs.claim('job_a', claim(at(120), { next_run_at: at(180), fire: { at: at(121), status: 'starting', run_id: 'run_2' } })))
        .toMatchObject({ last_status: 'starting', last_run_id: 'run_2', last_error: null, run_count: 1 });
    });

    it('a fire that never got its run settles as interrupted without counting a run', async () => {
      await jobs.create(newJob('job_a'), 10);
      await jobs.claim('job_a', claim(at(60), { fire: { at: at(61), status: 'starting', run_id: 'run_1' } }));
      expect(await second.settle('job_a', 'run_1', { status: 'interrupted', error: 'stopped' })).toBe(true);
      expect(await jobs.get('job_a')).toMatchObject({ last_status: 'interrupted', last_error: 'stopped', run_count: 0 });
    });

    it('a skip is counted apart and leaves the run in flight as it is', async () => {
      await jobs.create(newJob('job_a'), 10);
      await jobs.claim('job_a', claim(at(60), { fire: { at: at(61), status: 'starting', run_id: 'run_1' } }));
      await jobs.settle('job_a', 'run_1', { status: 'running' });
      const skipped = await jobs.claim('job_a', claim(at(120), { next_run_at: at(180), fire: { at: at(121), status: 'skipped', reason: 'in_flight' } }));
      expect(skipped).toMatchObject({
        skipped: 1, last_skipped_at: at(121), last_skip_reason: 'in_flight', last_status: 'running', last_run_id: 'run_1', last_run_at: at(61),
      });
      await jobs.claim('job_a', claim(at(180), { next_run_at: at(240), fire: { at: at(181), status: 'skipped', reason: 'budget' } }));
      expect(await jobs.get('job_a')).toMatchObject({ skipped: 2, last_skip_reason: 'budget' });
      expect(await jobs.settle('job_a', 'run_1', { status: 'complete' })).toBe(true);
    });

    it('pauses and resumes only from the other state', async () => {
      await jobs.create(newJob('job_a'), 10);
      expect(await jobs.pause('job_a')).toMatchObject({ state: 'paused', next_run_at: null });
      expect(await second.pause('job_a')).toBeNull();
      // A paused job's occurrence cannot be claimed.
      expect(await jobs.claim('job_a', claim(at(60)))).toBeNull();
      expect(await jobs.resume('job_a', at(600))).toMatchObject({ state: 'active', next_run_at: at(600) });
      expect(await jobs.resume('job_a', at(700))).toBeNull();
      expect(await jobs.get('job_a')).toMatchObject({ state: 'active', next_run_at: at(600) });
      expect(await jobs.pause('job_unknown')).toBeNull();
      expect(await jobs.resume('job_unknown', null)).toBeNull();
    });

    it('removes a job', async () => {
      await jobs.create(newJob('job_a'), 10);
      expect(await jobs.remove('job_a')).toBe(true);
      expect(await jobs.get('job_a')).toBeNull();
      expect(await second.remove('job_a')).toBe(false);
      expect(await jobs.settle('job_a', 'run_1', { status: 'complete' })).toBe(false);
    });

    it('two handles racing for the same occurrences: each is claimed exactly once', async () => {
      await jobs.create(newJob('job_a', { next_run_at: at(1) }), 10);
      const winners: string[] = [];
      for (let n = 1; n <= 200; n++) {
        const expected = at(n);
        const asks = [
          () => jobs.claim('job_a', claim(expected, { next_run_at: at(n + 1), fire: { at: expected, status: 'starting', run_id: `run_first_${n}` } })),
          () => second.claim('job_a', claim(expected, { next_run_at: at(n + 1), fire: { at: expected, status: 'starting', run_id: `run_second_${n}` } })),
        ];
        // Alternate who asks first, so both win some.
        const ordered = n % 2 === 0 ? asks : [...asks].reverse();
        const won = (await Promise.all(ordered.map((ask) => ask()))).filter((job): job is JobRecord => job !== null);
        expect(won).toHaveLength(1);
        winners.push(won[0]!.last_run_id!.split('_')[1]!);
      }
      expect(winners.filter((w) => w === 'first').length).toBeGreaterThan(0);
      expect(winners.filter((w) => w === 'second').length).toBeGreaterThan(0);
      expect((await second.get('job_a'))?.next_run_at).toBe(at(201));
    });
  });
}
