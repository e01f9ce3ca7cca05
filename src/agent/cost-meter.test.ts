import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../../test/helpers/storage.js';
import type { CompletionResult, Provider } from '../providers/types.js';
import { CostMeter } from './cost-meter.js';

function setup(maxSpendUsd: number, providers: Record<string, { base_url: string | null; price: { input_per_mtok: number; output_per_mtok: number } | null }> = {}) {
  const costs = memoryStorage().costs;
  const meter = new CostMeter({ costs, maxSpendUsd, providerConfig: (name) => providers[name] ?? null, now: () => Date.UTC(2026, 0, 1) });
  return { costs, meter };
}

const provider = (name: string, model: string): Provider => ({
  name, model, available: () => true, unavailableReason: () => null,
  prepare: () => { throw new Error('not called'); },
  complete: async () => { throw new Error('not called'); },
});
const result = (prompt: number, completion: number, model = 'gpt-4.1'): CompletionResult => ({
  text: '', toolCalls: [], model, usage: { prompt_tokens: prompt, completion_tokens: completion },
});

describe('CostMeter', async () => {
  it('prices calls from the table and keeps per-session and total sums', async () => {
    const { costs, meter } = setup(0, { openai: { base_url: null, price: null } });
    const gpt = provider('openai', 'gpt-4.1'); // $2 in, $8 out per million
    expect(await meter.record('s1', 'run_1', gpt, result(1_000_000, 0))).toEqual({ prompt_tokens: 1_000_000, completion_tokens: 0, cost_usd: 2 });
    await meter.record('s1', null, gpt, result(0, 500_000));
    await meter.record('s2', null, gpt, result(10, 10));
    expect(await costs.sessionSpend('s1')).toBe(6);
    expect(await costs.sessionSpend('nobody')).toBe(0);
    expect(await costs.totals()).toEqual({ calls: 3, prompt_tokens: 1_000_010, completion_tokens: 500_010, cost_usd: 6 + 0.0001, sessions: 2 });
    expect(await costs.topSessions(1)).toEqual([{ session_id: 's1', calls: 2, prompt_tokens: 1_000_000, completion_tokens: 500_000, cost_usd: 6, last_call_at: '2026-01-01T00:00:00.000Z' }]);
  });

  it('uses the configured price over the table; offline and self-hosted servers are free', async () => {
    const { meter } = setup(0, {
      openai: { base_url: 'http://127.0.0.1:11434/v1', price: null },
      anthropic: { base_url: null, price: { input_per_mtok: 1, output_per_mtok: 1 } },
    });
    expect((await meter.record('s', null, provider('openai', 'llama3'), result(1000, 1000))).cost_usd).toBe(0);
    expect((await meter.record('s', null, provider('offline', 'offline'), result(1000, 1000))).cost_usd).toBe(0);
    expect((await meter.record('s', null, provider('anthropic', 'claude-x'), result(1_000_000, 1_000_000))).cost_usd).toBe(2);
  });

  it('refuses the next call once spent >= cap, and unpriced models while a cap is set', async () => {
    const { meter } = setup(2, { openai: { base_url: null, price: null } });
    const gpt = provider('openai', 'gpt-4.1');
    await meter.check('s1', gpt);
    await meter.record('s1', null, gpt, result(999_999, 0));
    await meter.check('s1', gpt);
    await meter.record('s1', null, gpt, result(1, 0));
    await expect(meter.check('s1', gpt)).rejects.toThrow(/budget exceeded: session 's1' has spent \$2 of max_spend_usd \$2/);
    await meter.check('s2', gpt);
    await expect(meter.check('s2', provider('openai', 'gpt-unknown'))).rejects.toThrow(/set providers\.openai\.price/);
    // No cap, no refusal, and an unpriced call is recorded at 0.
    const free = setup(0, { openai: { base_url: null, price: null } });
    await free.meter.check('s1', provider('openai', 'gpt-unknown'));
    expect((await free.meter.record('s1', null, provider('openai', 'gpt-unknown'), result(5, 5))).cost_usd).toBe(0);
  });

  it('holds a call\'s bound while it runs, so concurrent calls on a session cannot together pass the cap', async () => {
    const { costs, meter } = setup(2, { openai: { base_url: null, price: null } });
    const gpt = provider('openai', 'gpt-4.1'); // $2 in, $8 out per million
    await meter.record('s1', null, gpt, result(980_000, 0)); // $1.96 spent
    const bound = { prompt_tokens: 1_000, completion_tokens: 4_096 }; // $0.002 + $0.032768
    const first = await meter.hold('s1', gpt, bound);
    await expect(meter.hold('s1', gpt, bound)).rejects.toThrow(
      /has spent \$1\.96 of max_spend_usd \$2 and calls in flight hold \$0\.034768 of it; the next call may cost up to \$0\.034768 \(1000 input tokens of its request, providers\.openai\.max_tokens 4096 output tokens\)/,
    );
    await first.release();
    const again = await meter.hold('s1', gpt, bound);
    expect(await again.settle('run_1', result(10_000, 0))).toEqual({ prompt_tokens: 10_000, completion_tokens: 0, cost_usd: 0.02 });
    expect(await costs.sessionSpend('s1')).toBeCloseTo(1.98, 10);
    // Settled: nothing is held; $0.02 is left, which a call of that bound no longer fits in, lone or not.
    await expect(meter.hold('s1', gpt, bound)).rejects.toThrow(/has spent \$1\.98 of max_spend_usd \$2; the next call may cost up to \$0\.034768/);
    expect(await meter.hold('s1', gpt, { prompt_tokens: 1_000, completion_tokens: 2_000 })).toBeDefined(); // $0.018 fits
    await expect(meter.hold('s1', provider('openai', 'gpt-unknown'), bound)).rejects.toThrow(/set providers\.openai\.price/);
  });

  it('holds the cost of the bound it is given, at the model\'s price, and nothing without a cap', async () => {
    const { costs, meter } = setup(1, { anthropic: { base_url: null, price: { input_per_mtok: 3, output_per_mtok: 15 } } });
    const claude = provider('anthropic', 'claude-x');
    const held = await meter.hold('s1', claude, { prompt_tokens: 100_000, completion_tokens: 20_000 }); // $0.3 + $0.3
    // Exactly $0.4 is left beside the $0.6 held.
    expect((await costs.reserve({ session_id: 's1', amount_usd: 0.41, cap_usd: 1, now: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:15:00.000Z' })).granted).toBe(false);
    expect((await costs.reserve({ session_id: 's1', amount_usd: 0.4, cap_usd: 1, now: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:15:00.000Z' })).granted).toBe(true);
    await held.release();
    const free = setup(0, { anthropic: { base_url: null, price: { input_per_mtok: 3, output_per_mtok: 15 } } });
    await free.meter.hold('s1', claude, { prompt_tokens: 1e9, completion_tokens: 1e9 });
    expect((await free.costs.reserve({ session_id: 's1', amount_usd: 1, cap_usd: 1, now: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:15:00.000Z' })).granted).toBe(true);
  });
});
