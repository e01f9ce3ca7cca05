import type { ProviderConfig } from '../config/schema.js';
import { costUsd, priceFor, unknownPriceMessage, type ModelPrice } from '../providers/prices.js';
import type { CompletionResult, Provider } from '../providers/types.js';
import type { CostStore } from './stores.js';
import { AgentError } from './errors.js';
import { isoNow, type RunCost } from './types.js';

export interface CostMeterOptions {
  costs: CostStore;
  /** `max_spend_usd`: per-session cap in USD; 0 means no cap. */
  maxSpendUsd: number;
  /** The provider's config section (for `price` and `base_url`), or null for `offline`. */
  providerConfig: (name: string) => Pick<ProviderConfig, 'base_url' | 'price'> | null;
  now?: () => number;
}

/**
 * Prices provider calls, records them, and enforces `max_spend_usd` before each one. The spend is
 * read from the stored costs every time, so a restart never resets a session's budget (sessions
 * with a stable id — webhook and job sessions — keep theirs for good).
 */
export class CostMeter {
  private readonly now: () => number;

  constructor(private readonly options: CostMeterOptions) {
    this.now = options.now ?? Date.now;
  }

  get maxSpendUsd(): number {
    return this.options.maxSpendUsd;
  }

  price(provider: Provider): ModelPrice | null {
    return priceFor(provider.name, provider.model, this.options.providerConfig(provider.name));
  }

  /**
   * Throws when the next call of `provider` on `sessionId` must not happen: the session has spent
   * its cap already, or a cap is set and the model has no price (its spend could not be counted).
   */
  async check(sessionId: string, provider: Provider): Promise<void> {
    const cap = this.options.maxSpendUsd;
    if (!(cap > 0)) return;
    if (this.price(provider) === null) throw new AgentError('unpriced_model', unknownPriceMessage(provider.name, provider.model));
    const spent = await this.options.costs.sessionSpend(sessionId);
    if (spent >= cap) {
      throw new AgentError(
        'budget_exceeded',
        `budget exceeded: session '${sessionId}' has spent $${formatUsd(spent)} of max_spend_usd $${formatUsd(cap)}; ` +
          'raise max_spend_usd in the config or use another session',
      );
    }
  }

  /**
   * Stores one call's usage and resolves with what it cost (0 when the model has no known price)
   * once it is committed, so the next `check` counts it.
   */
  async record(sessionId: string, runId: string | null, provider: Provider, result: CompletionResult): Promise<RunCost> {
    const price = this.price(provider);
    const usage = {
      prompt_tokens: nonNegativeInt(result.usage.prompt_tokens),
      completion_tokens: nonNegativeInt(result.usage.completion_tokens),
    };
    const cost = price ? costUsd(price, usage) : 0;
    const entry = {
      session_id: sessionId,
      run_id: runId,
      provider: provider.name,
      model: result.model || provider.model,
      ...usage,
      cost_usd: cost,
      timestamp: isoNow(this.now),
    };
    await this.options.costs.record(entry);
    return { ...usage, cost_usd: cost };
  }
}

function nonNegativeInt(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** Enough digits for a cent fraction of a cheap model's call, without float noise. */
export function formatUsd(value: number): string {
  return Number(value.toFixed(6)).toString();
}
