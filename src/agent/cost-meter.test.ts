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

  it('holds a call\'s estimated cost while it runs, so concurrent calls on a session cannot together pass the cap', async () => {
    const { costs, meter } = setup(2, { openai: { base_url: null, price: null } });
    const gpt = provider('openai', 'gpt-4.1'); // $8 per million output tokens: 4,096 held ≈ $0.033
    await meter.record('s1', null, gpt, result(980_000, 0)); // $1.96 spent
    const messages = [{ role: 'user' as const, content: 'hello' }];
    const first = await meter.hold('s1', gpt, messages);
    await expect(meter.hold('s1', gpt, messages)).rejects.toThrow(/has spent \$1\.96 of max_spend_usd \$2 and calls in flight hold \$0\.03/);
    await first.release();
    const again = await meter.hold('s1', gpt, messages);
    expect(await again.settle('run_1', result(10_000, 0))).toEqual({ prompt_tokens: 10_000, completion_tokens: 0, cost_usd: 0.02 });
    expect(await costs.sessionSpend('s1')).toBeCloseTo(1.98, 10);
    // Settled: nothing is held, so the next lone call is allowed while under the cap.
    expect(await meter.hold('s1', gpt, messages)).toBeDefined();
    await expect(meter.hold('s1', provider('openai', 'gpt-unknown'), messages)).rejects.toThrow(/set providers\.openai\.price/);
  });
});
