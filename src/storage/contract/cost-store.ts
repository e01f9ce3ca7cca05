import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CostEntry, CostStore } from '../ports/costs.js';

/** The behaviour every `CostStore` backend must have, through the interface only. */
export type OpenCostStore = () => Promise<{ store: CostStore; close(): Promise<void> }>;

const call = (session_id: string, cost_usd: number, timestamp: string, extra: Partial<CostEntry> = {}): CostEntry => ({
  session_id, run_id: null, provider: 'anthropic', model: 'claude', prompt_tokens: 10, completion_tokens: 5, cost_usd, timestamp, ...extra,
});

export function describeCostStore(backend: string, open: OpenCostStore): void {
  describe(`CostStore contract (${backend})`, () => {
    let costs: CostStore;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store: costs, close } = await open());
    });
    afterEach(async () => {
      await close();
    });

    it('reports nothing spent on an empty store', async () => {
      expect(await costs.sessionSpend('ses_a')).toBe(0);
      expect(await costs.totals()).toEqual({ calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, sessions: 0 });
      expect(await costs.topSessions(10)).toEqual([]);
    });

    it('sums a session\'s spend across its calls, and only its own', async () => {
      await costs.record(call('ses_a', 0.25, '2026-01-01T00:00:00.000Z', { run_id: 'run_1' }));
      await costs.record(call('ses_a', 0.5, '2026-01-01T00:01:00.000Z'));
      await costs.record(call('ses_b', 2, '2026-01-01T00:02:00.000Z'));
      expect(await costs.sessionSpend('ses_a')).toBeCloseTo(0.75, 10);
      expect(await costs.sessionSpend('ses_b')).toBeCloseTo(2, 10);
      expect(await costs.sessionSpend('ses_none')).toBe(0);
    });

    it('counts calls recorded in one batch', async () => {
      await Promise.all(Array.from({ length: 10 }, (_, i) => costs.record(call('ses_a', 0.1, `2026-01-01T00:00:0${i}.000Z`))));
      expect(await costs.sessionSpend('ses_a')).toBeCloseTo(1, 10);
      expect((await costs.totals()).calls).toBe(10);
    });

    it('totals every call and counts the sessions with one', async () => {
      await costs.record(call('ses_a', 0.25, '2026-01-01T00:00:00.000Z', { prompt_tokens: 100, completion_tokens: 20 }));
      await costs.record(call('ses_a', 0.5, '2026-01-01T00:01:00.000Z', { prompt_tokens: 7, completion_tokens: 3 }));
      await costs.record(call('ses_b', 1, '2026-01-01T00:02:00.000Z', { prompt_tokens: 1, completion_tokens: 1 }));
      const totals = await costs.totals();
      expect(totals).toMatchObject({ calls: 3, prompt_tokens: 108, completion_tokens: 24, sessions: 2 });
      expect(totals.cost_usd).toBeCloseTo(1.75, 10);
    });

    it('ranks sessions by spend, most first; ties by the most recent call first', async () => {
      await costs.record(call('ses_small', 0.1, '2026-01-01T00:05:00.000Z'));
      await costs.record(call('ses_big', 3, '2026-01-01T00:00:00.000Z'));
      await costs.record(call('ses_tie_old', 1, '2026-01-01T00:01:00.000Z'));
      await costs.record(call('ses_tie_new', 1, '2026-01-01T00:03:00.000Z'));
      const top = await costs.topSessions(10);
      expect(top.map((s) => s.session_id)).toEqual(['ses_big', 'ses_tie_new', 'ses_tie_old', 'ses_small']);
      expect(top[0]).toEqual({
        session_id: 'ses_big', calls: 1, prompt_tokens: 10, completion_tokens: 5, cost_usd: 3, last_call_at: '2026-01-01T00:00:00.000Z',
      });
      expect((await costs.topSessions(2)).map((s) => s.session_id)).toEqual(['ses_big', 'ses_tie_new']);
      expect((await costs.topSessions(2, 2)).map((s) => s.session_id)).toEqual(['ses_tie_old', 'ses_small']);
      expect(await costs.topSessions(2, 4)).toEqual([]);
    });

    it('sums spend per UTC hour, provider and model from `since` on, oldest hour first', async () => {
      await costs.record(call('ses_a', 9, '2026-01-01T09:59:59.999Z'));
      await costs.record(call('ses_a', 0.25, '2026-01-01T10:00:00.000Z'));
      await costs.record(call('ses_b', 0.5, '2026-01-01T10:59:00.000Z'));
      await costs.record(call('ses_b', 1, '2026-01-01T10:30:00.000Z', { provider: 'openai', model: 'gpt' }));
      await costs.record(call('ses_a', 2, '2026-01-01T12:00:00.000Z'));
      const hours = await costs.spendByHour('2026-01-01T10:00:00.000Z');
      expect(hours.map(({ cost_usd, ...rest }) => ({ ...rest, cost: Math.round(cost_usd * 100) }))).toEqual([
        { hour: '2026-01-01T10:00:00.000Z', provider: 'anthropic', model: 'claude', calls: 2, cost: 75 },
        { hour: '2026-01-01T10:00:00.000Z', provider: 'openai', model: 'gpt', calls: 1, cost: 100 },
        { hour: '2026-01-01T12:00:00.000Z', provider: 'anthropic', model: 'claude', calls: 1, cost: 200 },
      ]);
      expect(await costs.spendByHour('2026-01-02T00:00:00.000Z')).toEqual([]);
    });

    it('keeps the latest call time of a session whatever the order calls are recorded in', async () => {
      await costs.record(call('ses_a', 1, '2026-01-01T00:05:00.000Z'));
      await costs.record(call('ses_a', 1, '2026-01-01T00:01:00.000Z'));
      expect((await costs.topSessions(1))[0]).toMatchObject({ calls: 2, last_call_at: '2026-01-01T00:05:00.000Z' });
    });

    describe('pruneBefore', () => {
      it('removes old calls, and the totals of sessions whose last call is older', async () => {
        await costs.record(call('ses_gone', 2, '2026-01-01T00:00:00.000Z'));
        await costs.record(call('ses_gone', 3, '2026-01-02T00:00:00.000Z'));
        await costs.record(call('ses_mixed', 0.5, '2026-01-01T00:00:00.000Z'));
        await costs.record(call('ses_mixed', 0.25, '2026-02-01T00:00:00.000Z'));
        await costs.record(call('ses_new', 1, '2026-02-02T00:00:00.000Z'));

        expect(await costs.pruneBefore('2026-01-15T00:00:00.000Z')).toBe(3);

        // Its budget starts again from zero.
        expect(await costs.sessionSpend('ses_gone')).toBe(0);
        expect((await costs.topSessions(10)).map((s) => s.session_id)).toEqual(['ses_new', 'ses_mixed']);
        // A session with a recent call keeps its whole total, old calls included.
        expect(await costs.sessionSpend('ses_mixed')).toBeCloseTo(0.75, 10);
        expect(await costs.sessionSpend('ses_new')).toBeCloseTo(1, 10);
        expect((await costs.totals()).sessions).toBe(2);
      });

      it('removes nothing newer than the cutoff', async () => {
        await costs.record(call('ses_a', 1, '2026-02-01T00:00:00.000Z'));
        expect(await costs.pruneBefore('2026-01-01T00:00:00.000Z')).toBe(0);
        expect(await costs.totals()).toMatchObject({ calls: 1, sessions: 1 });
      });

      it('prunes many calls', async () => {
        for (let i = 0; i < 40; i++) await costs.record(call(`ses_${i % 4}`, 0.01, `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`));
        expect(await costs.pruneBefore('2026-01-02T00:00:00.000Z')).toBe(40);
        expect(await costs.totals()).toEqual({ calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, sessions: 0 });
      });

      it('removes nothing when the signal is already aborted', async () => {
        await costs.record(call('ses_a', 1, '2026-01-01T00:00:00.000Z'));
        const controller = new AbortController();
        controller.abort();
        expect(await costs.pruneBefore('2026-02-01T00:00:00.000Z', { signal: controller.signal })).toBe(0);
        expect(await costs.sessionSpend('ses_a')).toBe(1);
      });
    });

    describe('holds of calls in flight', () => {
      const NOW = '2026-01-01T00:00:00.000Z';
      const LATER = '2026-01-01T00:15:00.000Z';
      const ask = (amount_usd: number, extra: { session_id?: string; now?: string; expires_at?: string } = {}) =>
        costs.reserve({ session_id: 'ses_a', amount_usd, cap_usd: 1, now: NOW, expires_at: LATER, ...extra });
      const holdOf = async (amount: number) => {
        const answer = await ask(amount);
        if (!answer.granted) throw new Error(`expected a hold of ${amount}`);
        return answer.hold_id;
      };

      it('grants a call only when its amount fits in what is left, a lone call too, and refuses once the cap is reached', async () => {
        await costs.record(call('ses_a', 0.9, NOW));
        // Nothing in flight, but $0.9 + $0.2 would pass the cap.
        expect(await ask(0.2)).toEqual({ granted: false, spent_usd: 0.9, held_usd: 0 });
        expect(await ask(0.1)).toMatchObject({ granted: true });
        // Beside that hold nothing more fits.
        expect((await ask(0.01)).granted).toBe(false);
        await costs.record(call('ses_b', 1, NOW));
        expect(await costs.reserve({ session_id: 'ses_b', amount_usd: 0.01, cap_usd: 1, now: NOW, expires_at: LATER }))
          .toEqual({ granted: false, spent_usd: 1, held_usd: 0 });
      });

      it('lets calls in flight together hold only what fits under the cap', async () => {
        await costs.record(call('ses_a', 0.5, NOW));
        await holdOf(0.3);
        expect(await ask(0.2)).toMatchObject({ granted: true });
        const refused = await ask(0.01);
        expect(refused.granted).toBe(false);
        if (!refused.granted) {
          expect(refused.spent_usd).toBeCloseTo(0.5, 10);
          expect(refused.held_usd).toBeCloseTo(0.5, 10);
        }
        // Another session's budget is its own.
        expect(await ask(0.9, { session_id: 'ses_other' })).toMatchObject({ granted: true });
      });

      it('settles a hold into the recorded spend in one step, or releases it without a cost', async () => {
        const first = await holdOf(0.4);
        await holdOf(0.4);
        await costs.settle(first, call('ses_a', 0.05, NOW, { run_id: 'run_1' }));
        expect(await costs.sessionSpend('ses_a')).toBeCloseTo(0.05, 10);
        expect((await costs.totals()).calls).toBe(1);
        // 0.05 spent + 0.4 held + 0.5 asked fits under 1.
        const second = await holdOf(0.5);
        await costs.settle(second, null);
        expect((await costs.totals()).calls).toBe(1);
        expect(await ask(0.54)).toMatchObject({ granted: true });
      });

      it('stops counting a hold once it has expired (its holder died mid-call)', async () => {
        await costs.record(call('ses_a', 0.5, NOW));
        await holdOf(0.45);
        expect((await ask(0.1)).granted).toBe(false);
        expect(await ask(0.1, { now: LATER, expires_at: '2026-01-01T00:30:00.000Z' })).toMatchObject({ granted: true });
      });
    });
  });
}
