import type { ProviderConfig } from '../config/schema.js';
import { isSelfHosted } from './endpoints.js';
import type { Usage } from './types.js';

/** USD per million tokens, the unit both vendors publish (and the config's `price` uses). */
export interface ModelPrice {
  input_per_mtok: number;
  output_per_mtok: number;
}

const p = (input_per_mtok: number, output_per_mtok: number): ModelPrice => ({ input_per_mtok, output_per_mtok });

/**
 * List prices of the vendors' models (standard tier, no batch or cache discounts). A model missing
 * here has no price: with a budget cap set, the caller refuses it rather than count it as free, and
 * `providers.<name>.price` fills the gap. Keys are model ids without a date suffix. Models whose
 * list price varies (tiered or introductory pricing) are left out on purpose.
 */
export const PRICE_TABLE: Readonly<Record<'anthropic' | 'openai', Readonly<Record<string, ModelPrice>>>> = {
  anthropic: {
    'claude-fable-5-1': p(10, 50),
    'claude-opus-5-5': p(4, 20),
    'claude-opus-5': p(5, 25),
    'claude-sonnet-5-5': p(2, 10),
    'claude-sonnet-5': p(2, 10),
    'claude-opus-4-8': p(5, 25),
    'claude-opus-4-7': p(5, 25),
    'claude-opus-4-6': p(5, 25),
    'claude-opus-4-5': p(5, 25),
    'claude-opus-4-1': p(15, 75),
    'claude-opus-4-0': p(15, 75),
    'claude-opus-4': p(15, 75),
    'claude-sonnet-4-6': p(3, 15),
    'claude-sonnet-4-5': p(3, 15),
    'claude-sonnet-4-0': p(3, 15),
    'claude-sonnet-4': p(3, 15),
    'claude-haiku-4-5': p(1, 5),
    'claude-3-7-sonnet': p(3, 15),
    'claude-3-5-sonnet': p(3, 15),
    'claude-3-5-haiku': p(0.8, 4),
    'claude-3-opus': p(15, 75),
    'claude-3-haiku': p(0.25, 1.25),
  },
  openai: {
    'gpt-5.1': p(1.25, 10),
    'gpt-5': p(1.25, 10),
    'gpt-5-chat': p(1.25, 10),
    'gpt-5-mini': p(0.25, 2),
    'gpt-5-nano': p(0.05, 0.4),
    'gpt-5-pro': p(15, 120),
    'gpt-4.1': p(2, 8),
    'gpt-4.1-mini': p(0.4, 1.6),
    'gpt-4.1-nano': p(0.1, 0.4),
    'gpt-4o': p(2.5, 10),
    // The first gpt-4o snapshot kept its launch price; an exact entry beats the family prefix.
    'gpt-4o-2024-05-13': p(5, 15),
    'gpt-4o-mini': p(0.15, 0.6),
    'o4-mini': p(1.1, 4.4),
    'o3': p(2, 8),
    'o3-mini': p(1.1, 4.4),
    'o1': p(15, 60),
    'gpt-4-turbo': p(10, 30),
    'gpt-3.5-turbo': p(0.5, 1.5),
  },
};

const FREE: ModelPrice = p(0, 0);

/** Snapshot suffixes that keep a model's family price: -20250929, -2025-04-14, -latest. */
const SNAPSHOT_SUFFIX = /^-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The table entry for `model`: an exact id, or a family id plus a snapshot suffix
 * (`claude-sonnet-4-5-20250929` → claude-sonnet-4-5). Only snapshot suffixes count, so an unknown
 * successor (`claude-sonnet-4-9`) is not silently priced as its predecessor.
 */
export function lookupModelPrice(provider: string, model: string): ModelPrice | null {
  if (provider !== 'anthropic' && provider !== 'openai') return null;
  const table = PRICE_TABLE[provider];
  let id = model.trim().toLowerCase();
  // Anthropic ids use dashes where people write dots ("claude-sonnet-4.5").
  if (provider === 'anthropic') id = id.replace(/(\d)\.(\d)/g, '$1-$2');
  let best: string | null = null;
  for (const key of Object.keys(table)) {
    const matches = id === key || (id.startsWith(`${key}-`) && SNAPSHOT_SUFFIX.test(id.slice(key.length)));
    if (matches && (best === null || key.length > best.length)) best = key;
  }
  return best === null ? null : table[best]!;
}

/**
 * The price of one provider's model: the config's `price` wins; `offline` and self-hosted servers
 * (a base_url that is not the vendor's API) cost nothing; otherwise the table; null when unknown.
 */
export function priceFor(
  providerName: string,
  model: string,
  providerConfig?: Pick<ProviderConfig, 'base_url' | 'price'> | null,
): ModelPrice | null {
  if (providerConfig?.price) return { ...providerConfig.price };
  if (providerName === 'offline') return FREE;
  if (providerConfig && isSelfHosted(providerName, providerConfig)) return FREE;
  return lookupModelPrice(providerName, model);
}

/** Cost in USD of one call. */
export function costUsd(price: ModelPrice, usage: Usage): number {
  return (usage.prompt_tokens * price.input_per_mtok + usage.completion_tokens * price.output_per_mtok) / 1_000_000;
}

/** The refusal text when a budget cap is set and the model has no price. */
export function unknownPriceMessage(providerName: string, model: string): string {
  return (
    `no price is known for model '${model}' of provider '${providerName}', so its spend cannot be checked against ` +
    `max_spend_usd: set providers.${providerName}.price: { input_per_mtok: <USD>, output_per_mtok: <USD> } in the config`
  );
}
