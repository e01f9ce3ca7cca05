import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunOutcome, RunStore } from '../ports/runs.js';
import type { RunEvent, RunEventName, RunListQuery, RunRecord } from '../ports/runs.js';
import { RunClosedError } from '../ports/errors.js';

/** The behaviour every `RunStore` backend must have, through the interface only. */
export type OpenRunStore = () => Promise<{ store: RunStore; close(): Promise<void> }>;

const record = (id: string, session = 'ses_1', extra: Partial<RunRecord> = {}): RunRecord => ({
  run_id: id, session_id: session, message: `asked ${id}`, status: 'pending', provider: null, resolved_provider: 'offline',
  created_at: '2026-01-01T00:00:00.000Z', started_at: null, finished_at: null, response: null, error: null,
  tools_used: [], cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, source: 'api', job_id: null,
  model: null, first_token_at: null, ...extra,
});
const ev = (id: number, name: RunEventName, data = '{}'): RunEvent => ({ id, name, data });
const outcome = (finished_at: string, extra: Partial<RunOutcome> = {}): RunOutcome => ({
  status: 'complete', finished_at, response: 'done', error: null, tools_used: [],
  cost: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, model: null, first_token_at: null, ...extra,
});

export function describeRunStore(backend: string, open: OpenRunStore): void {
  describe(`RunStore contract (${backend})`, () => {
    let runs: RunStore;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store: runs, close } = await open());
    });
    afterEach(async () => {
      await close();
    });

    /** A run created, started and finished at `finishedAt`. */
    const finished = async (id: string, finishedAt: string, session = 'ses_1') => {
      await runs.create(record(id, session));
      await runs.start(id, '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
      await runs.finish(id, outcome(finishedAt), ev(2, 'run.complete'));
    };

    it('stores a created run and reads it back; unknown ids are null', async () => {
      const run = record('run_a', 'ses_1', { provider: 'anthropic', resolved_provider: 'anthropic' });
      await runs.create(run);
      expect(await runs.get('run_a')).toEqual(run);
      expect(await runs.get('run_unknown')).toBeNull();
    });

    it('starts a run: status, start time and the run.start event together', async () => {
      await runs.create(record('run_a'));
      await runs.start('run_a', '2026-01-01T00:00:01.000Z', ev(1, 'run.start', '{"run_id":"run_a"}'));
      expect(await runs.get('run_a')).toMatchObject({ status: 'running', started_at: '2026-01-01T00:00:01.000Z', finished_at: null });
      expect(await runs.events('run_a', 0)).toEqual([ev(1, 'run.start', '{"run_id":"run_a"}')]);
    });

    it('finishes a run: the outcome and the terminal event together', async () => {
      await runs.create(record('run_a'));
      await runs.start('run_a', '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
      await runs.appendEvent('run_a', ev(2, 'tool.request', '{"x":1}'));
      await runs.finish('run_a', outcome('2026-01-01T00:00:02.000Z', {
        response: 'ok', tools_used: ['calculator'], cost: { prompt_tokens: 3, completion_tokens: 4, cost_usd: 0.5 },
        model: 'claude-x-2026', first_token_at: '2026-01-01T00:00:01.500Z',
      }), ev(3, 'run.complete'));
      expect(await runs.get('run_a')).toEqual({
        ...record('run_a'), status: 'complete', started_at: '2026-01-01T00:00:01.000Z', finished_at: '2026-01-01T00:00:02.000Z',
        response: 'ok', error: null, tools_used: ['calculator'], cost: { prompt_tokens: 3, completion_tokens: 4, cost_usd: 0.5 },
        model: 'claude-x-2026', first_token_at: '2026-01-01T00:00:01.500Z',
      });
      expect((await runs.events('run_a', 0)).map((e) => `${e.id}:${e.name}`)).toEqual(['1:run.start', '2:tool.request', '3:run.complete']);
    });

    it('records an error outcome', async () => {
      await runs.create(record('run_e'));
      await runs.start('run_e', '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
      await runs.finish('run_e', outcome('2026-01-01T00:00:02.000Z', { status: 'error', response: null, error: 'provider failed' }), ev(2, 'run.error'));
      expect(await runs.get('run_e')).toMatchObject({ status: 'error', response: null, error: 'provider failed' });
    });

    it('replays events after an id, in order, with their data exactly as given', async () => {
      await runs.create(record('run_a'));
      await runs.start('run_a', '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
      // The data is the wire JSON: spacing and key order are kept, never re-serialised.
      await runs.appendEvent('run_a', ev(2, 'tool.request', '{"b": 2,  "a":"é"}'));
      await runs.appendEvent('run_a', ev(3, 'tool.result', '{"ok":true}'));
      expect(await runs.events('run_a', 1)).toEqual([ev(2, 'tool.request', '{"b": 2,  "a":"é"}'), ev(3, 'tool.result', '{"ok":true}')]);
      expect((await runs.events('run_a', 2)).map((e) => e.id)).toEqual([3]);
      expect(await runs.events('run_a', 3)).toEqual([]);
      expect(await runs.events('run_unknown', 0)).toEqual([]);
    });

    it('keeps each run\'s events apart', async () => {
      for (const id of ['run_a', 'run_b']) {
        await runs.create(record(id));
        await runs.start(id, '2026-01-01T00:00:01.000Z', ev(1, 'run.start', `{"run":"${id}"}`));
      }
      expect(await runs.events('run_b', 0)).toEqual([ev(1, 'run.start', '{"run":"run_b"}')]);
    });

    it('lists a session\'s runs newest first, up to the limit', async () => {
      for (const id of ['r1', 'r2', 'r3']) await runs.create(record(id));
      await runs.create(record('other', 'ses_2'));
      expect((await runs.listBySession('ses_1', 2)).map((r) => r.run_id)).toEqual(['r3', 'r2']);
      expect((await runs.listBySession('ses_1', 10)).map((r) => r.run_id)).toEqual(['r3', 'r2', 'r1']);
      expect((await runs.listBySession('ses_2', 10)).map((r) => r.run_id)).toEqual(['other']);
      expect(await runs.listBySession('ses_none', 10)).toEqual([]);
    });

    it('lists runs created in one batch in creation order', async () => {
      await Promise.all(['p1', 'p2', 'p3'].map((id) => runs.create(record(id))));
      expect((await runs.listBySession('ses_1', 10)).map((r) => r.run_id)).toEqual(['p3', 'p2', 'p1']);
    });

    describe('a run\'s log ends with its terminal event', () => {
      it('refuses events, a start and a second end for a finished run (RunClosedError), and writes nothing', async () => {
        await finished('done', '2026-01-01T00:00:05.000Z');
        await expect(runs.appendEvent('done', ev(3, 'tool.request'))).rejects.toBeInstanceOf(RunClosedError);
        await expect(runs.start('done', '2026-01-01T00:00:06.000Z', ev(3, 'run.start'))).rejects.toBeInstanceOf(RunClosedError);
        await expect(runs.finish('done', outcome('2026-01-01T00:00:06.000Z', { status: 'error', error: 'late' }), ev(3, 'run.error')))
          .rejects.toBeInstanceOf(RunClosedError);
        expect((await runs.events('done', 0)).map((e) => `${e.id}:${e.name}`)).toEqual(['1:run.start', '2:run.complete']);
        expect(await runs.get('done')).toMatchObject({ status: 'complete', error: null, finished_at: '2026-01-01T00:00:05.000Z' });
      });

      it('refuses what the process that ran a run writes after the run was ended as interrupted', async () => {
        await runs.create(record('cut_off'));
        await runs.start('cut_off', '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
        await runs.recoverInterrupted('2026-01-01T00:00:30.000Z', 'interrupted');
        // The ids the executing process would use next, and others: none is taken after the end.
        for (const id of [2, 3]) await expect(runs.appendEvent('cut_off', ev(id, 'tool.result'))).rejects.toBeInstanceOf(RunClosedError);
        await expect(runs.finish('cut_off', outcome('2026-01-01T00:00:31.000Z'), ev(3, 'run.complete'))).rejects.toBeInstanceOf(RunClosedError);
        expect((await runs.events('cut_off', 0)).map((e) => `${e.id}:${e.name}`)).toEqual(['1:run.start', '2:run.error']);
        expect(await runs.get('cut_off')).toMatchObject({ status: 'error', error: 'interrupted', response: null });
      });

      it('refuses events for an unknown run', async () => {
        await expect(runs.appendEvent('run_unknown', ev(1, 'run.start'))).rejects.toBeInstanceOf(RunClosedError);
        expect(await runs.events('run_unknown', 0)).toEqual([]);
      });
    });

    describe('recoverInterrupted', () => {
      it('fails unfinished runs with a terminal run.error after their last event and returns their ids', async () => {
        await runs.create(record('pending'));
        await runs.create(record('running', 'ses_1', { resolved_provider: 'openai' }));
        await runs.start('running', '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
        await runs.appendEvent('running', ev(2, 'tool.request'));
        await finished('done', '2026-01-01T00:00:05.000Z');

        expect((await runs.recoverInterrupted('2026-01-02T00:00:00.000Z', 'interrupted by restart')).sort()).toEqual(['pending', 'running']);

        expect(await runs.get('running')).toMatchObject({
          status: 'error', error: 'interrupted by restart', finished_at: '2026-01-02T00:00:00.000Z', response: null,
        });
        const [terminal, ...rest] = await runs.events('running', 2);
        expect(rest).toEqual([]);
        expect(terminal).toMatchObject({ id: 3, name: 'run.error' });
        expect(JSON.parse(terminal!.data)).toMatchObject({ run_id: 'running', error: 'interrupted by restart', resolved_provider: 'openai' });

        // A run that never started still gets the run.start its log must open with.
        expect((await runs.events('pending', 0)).map((e) => `${e.id}:${e.name}`)).toEqual(['1:run.start', '2:run.error']);
        expect(await runs.get('pending')).toMatchObject({ status: 'error', error: 'interrupted by restart' });

        expect(await runs.get('done')).toMatchObject({ status: 'complete', error: null, finished_at: '2026-01-01T00:00:05.000Z' });
        expect((await runs.events('done', 0)).map((e) => e.name)).toEqual(['run.start', 'run.complete']);
      });

      it('ends a run left running without any event, opening its log with run.start', async () => {
        await runs.create(record('bare', 'ses_1', { status: 'running' }));
        expect(await runs.recoverInterrupted('2026-01-02T00:00:00.000Z', 'interrupted by restart')).toEqual(['bare']);
        expect((await runs.events('bare', 0)).map((e) => `${e.id}:${e.name}`)).toEqual(['1:run.start', '2:run.error']);
        expect(await runs.get('bare')).toMatchObject({ status: 'error', error: 'interrupted by restart' });
      });

      it('returns nothing when no run is unfinished', async () => {
        await finished('done', '2026-01-01T00:00:05.000Z');
        expect(await runs.recoverInterrupted('2026-01-02T00:00:00.000Z', 'again')).toEqual([]);
        expect((await runs.events('done', 0))).toHaveLength(2);
      });
    });

    describe('pruneFinishedBefore', () => {
      it('deletes only finished runs older than the cutoff, with their events', async () => {
        await finished('old_1', '2026-01-01T00:00:00.000Z');
        await finished('old_2', '2026-01-05T00:00:00.000Z', 'ses_2');
        await finished('new', '2026-02-01T00:00:00.000Z');
        // Created and started long before the cutoff, but never finished: never pruned.
        await runs.create(record('running'));
        await runs.start('running', '2026-01-01T00:00:01.000Z', ev(1, 'run.start'));
        await runs.create(record('pending'));

        expect(await runs.pruneFinishedBefore('2026-01-10T00:00:00.000Z')).toBe(2);

        for (const id of ['old_1', 'old_2']) {
          expect(await runs.get(id)).toBeNull();
          expect(await runs.events(id, 0)).toEqual([]);
        }
        expect(await runs.get('new')).toMatchObject({ status: 'complete' });
        expect(await runs.events('new', 0)).toHaveLength(2);
        expect(await runs.get('running')).toMatchObject({ status: 'running' });
        expect(await runs.events('running', 0)).toHaveLength(1);
        expect(await runs.get('pending')).toMatchObject({ status: 'pending' });
        expect((await runs.listBySession('ses_1', 10)).map((r) => r.run_id)).toEqual(['pending', 'running', 'new']);
      });

      it('prunes many runs', async () => {
        for (let i = 0; i < 30; i++) await finished(`old_${i}`, `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`);
        expect(await runs.pruneFinishedBefore('2026-01-02T00:00:00.000Z')).toBe(30);
        expect(await runs.listBySession('ses_1', 100)).toEqual([]);
      });

      it('removes nothing when the signal is already aborted', async () => {
        await finished('old', '2026-01-01T00:00:00.000Z');
        const controller = new AbortController();
        controller.abort();
        expect(await runs.pruneFinishedBefore('2026-02-01T00:00:00.000Z', { signal: controller.signal })).toBe(0);
        expect(await runs.get('old')).not.toBeNull();
      });
    });

    describe('list (every session)', () => {
      /** Six runs over three sessions, created a minute apart: api, job, webhook, in turn. */
      const seed = async () => {
        const kinds = [
          { session: 'ses_1', source: 'api' as const, job_id: null },
          { session: 'job:job_1', source: 'job' as const, job_id: 'job_1' },
          { session: 'webhook:alice', source: 'webhook' as const, job_id: null },
        ];
        for (let i = 0; i < 6; i++) {
          const { session, source, job_id } = kinds[i % 3]!;
          await runs.create(record(`run_${i}`, session, { source, job_id, created_at: `2026-01-01T00:0${i}:00.000Z` }));
        }
        await runs.start('run_4', '2026-01-01T00:10:00.000Z', ev(1, 'run.start'));
        await runs.finish('run_4', outcome('2026-01-01T00:11:00.000Z'), ev(2, 'run.complete'));
      };
      const ids = async (query: Partial<RunListQuery>) =>
        (await runs.list({ limit: 50, offset: 0, ...query })).runs.map((run) => run.run_id);

      it('counts runs per UTC hour and status from `since` on, oldest hour first', async () => {
        await seed();
        await runs.create(record('run_late', 'ses_1', { created_at: '2026-01-01T02:30:00.000Z' }));
        expect(await runs.countByHour('2026-01-01T00:01:00.000Z')).toEqual([
          { hour: '2026-01-01T00:00:00.000Z', status: 'complete', runs: 1 },
          { hour: '2026-01-01T00:00:00.000Z', status: 'pending', runs: 4 },
          { hour: '2026-01-01T02:00:00.000Z', status: 'pending', runs: 1 },
        ]);
        expect(await runs.countByHour('2026-01-01T03:00:00.000Z')).toEqual([]);
      });

      it('lists every session\'s runs newest first, with their source and job', async () => {
        await seed();
        const page = await runs.list({ limit: 50, offset: 0 });
        expect(page.runs.map((run) => run.run_id)).toEqual(['run_5', 'run_4', 'run_3', 'run_2', 'run_1', 'run_0']);
        expect(page).toMatchObject({ total: 6, total_capped: false, has_more: false });
        expect(page.runs[4]).toEqual(record('run_1', 'job:job_1', { source: 'job', job_id: 'job_1', created_at: '2026-01-01T00:01:00.000Z' }));
        expect(page.runs[0]).toMatchObject({ source: 'webhook', job_id: null });
      });

      it('narrows by status, source, job, and created_at (since inclusive, until exclusive)', async () => {
        await seed();
        expect(await ids({ status: 'complete' })).toEqual(['run_4']);
        expect(await ids({ status: 'pending' })).toEqual(['run_5', 'run_3', 'run_2', 'run_1', 'run_0']);
        expect(await ids({ source: 'job' })).toEqual(['run_4', 'run_1']);
        expect(await ids({ source: 'webhook', status: 'pending' })).toEqual(['run_5', 'run_2']);
        expect(await ids({ job_id: 'job_1' })).toEqual(['run_4', 'run_1']);
        expect(await ids({ job_id: 'job_none' })).toEqual([]);
        expect(await ids({ since: '2026-01-01T00:02:00.000Z', until: '2026-01-01T00:04:00.000Z' })).toEqual(['run_3', 'run_2']);
        expect(await runs.list({ limit: 50, offset: 0, source: 'api' })).toMatchObject({ total: 2, has_more: false });
      });

      it('pages by position: has_more while runs follow, total over every match', async () => {
        await seed();
        expect(await runs.list({ limit: 2, offset: 0 })).toMatchObject({ total: 6, has_more: true });
        const middle = await runs.list({ limit: 2, offset: 2 });
        expect(middle.runs.map((run) => run.run_id)).toEqual(['run_3', 'run_2']);
        expect(middle.has_more).toBe(true);
        expect(await runs.list({ limit: 2, offset: 4 })).toMatchObject({ has_more: false, total: 6 });
        expect(await runs.list({ limit: 2, offset: 10 })).toMatchObject({ runs: [], has_more: false, total: 6 });
      });
    });
  });
}
