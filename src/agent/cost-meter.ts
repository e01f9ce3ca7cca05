import type { ProviderConfig } from '../config/schema.js';
import { costUsd, priceFor, unknownPriceMessage, type ModelPrice } from '../providers/prices.js';
import type { CompletionResult, Provider, Usage } from '../providers/types.js';
import type { CostEntry, CostStore } from '../storage/ports/costs.js';
import { AgentError } from '../contracts/agent-errors.js';
import { isoNow, type RunCost, type RunEndWrites } from '../storage/ports/runs.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from '../metrics/index.js';

export interface CostMeterOptions {
  costs: CostStore;
  /** `max_spend_usd`: per-session cap in USD; 0 means no cap. */
  maxSpendUsd: number;
  /** The provider's config section (for `price` and `base_url`), or null for `offline`. */
  providerConfig: (name: string) => Pick<ProviderConfig, 'base_url' | 'price'> | null;
  now?: () => number;
  /** Counts the tokens and cost of each recorded call, once it is committed. */
  metrics?: Pick<ServiceMetrics, 'providerUsage'>;
  /** Where a cost kept for its run's end fails to be written. */
  log?: Pick<Logger, 'error'>;
}

/**
 * How long a call's hold on the budget counts when it is never settled (its process died mid-call):
 * longer than any provider call takes.
 */
const HOLD_MS = 15 * 60_000;

/**
 * Prices provider calls, records them, and enforces `max_spend_usd` before each one. The spend is
 * read from the stored costs every time, so a restart never resets a session's budget (sessions
 * with a stable id — webhook and job sessions — keep theirs for good). With a cap, each call holds
 * the most it can cost in the store until its real cost is recorded, and is refused when that does
 * not fit, so calls on the same session, in one process or several, never pass the cap (`CostStore.reserve`).
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
   * Before a call of `provider`: refuses it like `check`, and with a cap holds `bound`'s cost — the
   * most the call can be billed for (`PreparedCall.bound`, counted from the request as it is sent)
   * — until it is settled or released. Refused too when that cost does not fit in what the session
   * has left beside the calls in flight: an allowed call can never take the spend past the cap.
   */
  async hold(sessionId: string, provider: Provider, bound: Usage): Promise<HeldCall> {
    const cap = this.options.maxSpendUsd;
    if (!(cap > 0)) return new HeldCall(this, this.options.costs, sessionId, provider, null);
    const price = this.price(provider);
    if (price === null) throw new AgentError('unpriced_model', unknownPriceMessage(provider.name, provider.model));
    const amount = costUsd(price, bound);
    const now = this.now();
    const answer = await this.options.costs.reserve({
      session_id: sessionId,
      amount_usd: amount,
      cap_usd: cap,
      now: new Date(now).toISOString(),
      expires_at: new Date(now + HOLD_MS).toISOString(),
    });
    if (!answer.granted) {
      const inFlight = answer.held_usd > 0 ? ` and calls in flight hold $${formatUsd(answer.held_usd)} of it` : '';
      const call = answer.spent_usd < cap
        ? `; the next call may cost up to $${formatUsd(amount)} (${bound.prompt_tokens} input tokens of its request, ` +
          `providers.${provider.name}.max_tokens ${bound.completion_tokens} output tokens), which does not fit`
        : '';
      throw new AgentError(
        'budget_exceeded',
        `budget exceeded: session '${sessionId}' has spent $${formatUsd(answer.spent_usd)} of max_spend_usd $${formatUsd(cap)}${inFlight}${call}; ` +
          'raise max_spend_usd in the config or use another session',
      );
    }
    return new HeldCall(this, this.options.costs, sessionId, provider, answer.hold_id);
  }

  /**
   * Stores one call's usage and resolves with what it cost (0 when the model has no known price)
   * once it is committed, so the next `check` counts it. Called without a cap only (with one, each
   * call settles its hold, `HeldCall.settle`): nothing checks the spend then, so a run's call may be
   * kept for the commit of its end (`atEnd`), and this resolves at once.
   */
  async record(sessionId: string, runId: string | null, provider: Provider, result: CompletionResult, atEnd: RunEndWrites | null = null): Promise<RunCost> {
    const { entry, cost } = this.entry(sessionId, runId, provider, result);
    if (atEnd && runId !== null) {
      atEnd.cost(runId, entry).then(() => this.recorded(provider, cost), (error: unknown) => {
        this.options.log?.error(`could not store the cost of a call of run ${runId}: ${(error as Error)?.message ?? String(error)}`);
      });
      return cost;
    }
    await this.options.costs.record(entry);
    this.recorded(provider, cost);
    return cost;
  }

  /** Called once a call's cost is committed. */
  recorded(provider: Provider, cost: RunCost): void {
    this.options.metrics?.providerUsage(provider.name, cost);
  }

  /** The stored form of one call's usage, and what it cost. */
  entry(sessionId: string, runId: string | null, provider: Provider, result: CompletionResult): { entry: CostEntry; cost: RunCost } {
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
    return { entry, cost: { ...usage, cost_usd: cost } };
  }
}

/** A provider call allowed by `CostMeter.hold`: settled with its result, or released when it failed. */
export class HeldCall {
  constructor(
    private readonly meter: CostMeter,
    private readonly costs: CostStore,
    private readonly sessionId: string,
    private readonly provider: Provider,
    /** The store's hold; null when no cap is set (nothing is held). */
    private readonly holdId: string | null,
  ) {}

  /**
   * Records the call's cost and drops the hold in one commit; resolves with the cost. Without a
   * hold (no cap), a run's cost may go with its end (`CostMeter.record`).
   */
  async settle(runId: string | null, result: CompletionResult, atEnd: RunEndWrites | null = null): Promise<RunCost> {
    if (this.holdId === null) return this.meter.record(this.sessionId, runId, this.provider, result, atEnd);
    const { entry, cost } = this.meter.entry(this.sessionId, runId, this.provider, result);
    await this.costs.settle(this.holdId, entry);
    this.meter.recorded(this.provider, cost);
    return cost;
  }

  /** The call made no usage (it failed or was cancelled): the budget it held is free again. */
  async release(): Promise<void> {
    if (this.holdId !== null) await this.costs.settle(this.holdId, null);
  }
}

function nonNegativeInt(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** Enough digits for a cent fraction of a cheap model's call, without float noise. */
export function formatUsd(value: number): string {
  return Number(value.toFixed(6)).toString();
}
