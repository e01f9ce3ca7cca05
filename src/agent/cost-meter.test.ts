import { afterEach, describe, expect, it } from 'vitest';
import type { CompletionResult, Provider } from '../providers/types.js';
import { Database } from '../storage/database.js';
import { CostMeter } from './cost-meter.js';
import { SqliteCostStore } from './cost-store.js';

const dbs: Database[] = [];
afterEach(() => dbs.splice(0).forEach((db) => db.close()));

function setup(maxSpendUsd: number, providers: Record<string, { base_url: string | null; price: { input_per_mtok: number; output_per_mtok: number } | null }> = {}) {
  const db = new Database(':memory:');
  dbs.push(db);
  const costs = new SqliteCostStore(db);
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

describe('CostMeter', () => {
  it('prices calls from the table and keeps per-session and total sums', () => {
    const { costs, meter } = setup(0, { openai: { base_url: null, price: null } });
    const gpt = provider('openai', 'gpt-4.1'); // $2 in, $8 out per million
    expect(meter.record('s1', 'run_1', gpt, result(1_000_000, 0))).toEqual({ prompt_tokens: 1_000_000, completion_tokens: 0, cost_usd: 2 });
    meter.record('s1', null, gpt, result(0, 500_000));
    meter.record('s2', null, gpt, result(10, 10));
    expect(costs.sessionSpend('s1')).toBe(6);
    expect(costs.sessionSpend('nobody')).toBe(0);
    expect(costs.totals()).toEqual({ calls: 3, prompt_tokens: 1_000_010, completion_tokens: 500_010, cost_usd: 6 + 0.0001, sessions: 2 });
    expect(costs.topSessions(1)).toEqual([{ session_id: 's1', calls: 2, prompt_tokens: 1_000_000, completion_tokens: 500_000, cost_usd: 6, last_call_at: '2026-01-01T00:00:00.000Z' }]);
  });

  it('uses the configured price over the table; offline and self-hosted servers are free', () => {
    const { meter } = setup(0, {
      openai: { base_url: 'http://127.0.0.1:11434/v1', price: null },
      anthropic: { base_url: null, price: { input_per_mtok: 1, output_per_mtok: 1 } },
    });
    expect(meter.record('s', null, provider('openai', 'llama3'), result(1000, 1000)).cost_usd).toBe(0);
    expect(meter.record('s', null, provider('offline', 'offline'), result(1000, 1000)).cost_usd).toBe(0);
    expect(meter.record('s', null, provider('anthropic', 'claude-x'), result(1_000_000, 1_000_000)).cost_usd).toBe(2);
  });

  it('refuses the next call once spent >= cap, and unpriced models while a cap is set', () => {
    const { meter } = setup(2, { openai: { base_url: null, price: null } });
    const gpt = provider('openai', 'gpt-4.1');
    meter.check('s1', gpt);
    meter.record('s1', null, gpt, result(999_999, 0));
    meter.check('s1', gpt);
    meter.record('s1', null, gpt, result(1, 0));
    expect(() => meter.check('s1', gpt)).toThrow(/budget exceeded: session 's1' has spent \$2 of max_spend_usd \$2/);
    meter.check('s2', gpt);
    expect(() => meter.check('s2', provider('openai', 'gpt-unknown'))).toThrow(/set providers\.openai\.price/);
    // No cap, no refusal, and an unpriced call is recorded at 0.
    const free = setup(0, { openai: { base_url: null, price: null } });
    free.meter.check('s1', provider('openai', 'gpt-unknown'));
    expect(free.meter.record('s1', null, provider('openai', 'gpt-unknown'), result(5, 5)).cost_usd).toBe(0);
  });
});
