import { describe, expect, it } from 'vitest';
import { costUsd, lookupModelPrice, priceFor, unknownPriceMessage } from './prices.js';

const hosted = { base_url: null, price: null };

describe('lookupModelPrice', () => {
  it.each([
    ['anthropic', 'claude-sonnet-4-5', 3, 15],
    ['anthropic', 'claude-sonnet-4-5-20250929', 3, 15],
    ['anthropic', 'claude-sonnet-4.5', 3, 15],
    ['anthropic', 'claude-sonnet-4-20250514', 3, 15],
    ['anthropic', 'claude-opus-4-1-20250805', 15, 75],
    ['anthropic', 'claude-opus-4-5-20251101', 5, 25],
    ['anthropic', 'claude-opus-4-0', 15, 75],
    ['anthropic', 'claude-haiku-4-5', 1, 5],
    ['anthropic', 'claude-opus-5-5', 4, 20],
    ['anthropic', 'claude-opus-5', 5, 25],
    ['anthropic', 'claude-sonnet-4-6', 3, 15],
    ['anthropic', 'claude-3-5-haiku-latest', 0.8, 4],
    ['anthropic', 'Claude-3-5-Haiku-20241022', 0.8, 4],
    ['openai', 'gpt-4.1-mini', 0.4, 1.6],
    ['openai', 'gpt-4.1-mini-2025-04-14', 0.4, 1.6],
    ['openai', 'gpt-4.1', 2, 8],
    ['openai', 'gpt-4.1-nano', 0.1, 0.4],
    ['openai', 'gpt-4o', 2.5, 10],
    ['openai', 'gpt-4o-2024-08-06', 2.5, 10],
    ['openai', 'gpt-4o-2024-05-13', 5, 15],
    ['openai', 'gpt-4o-mini-2024-07-18', 0.15, 0.6],
    ['openai', 'o3', 2, 8],
    ['openai', 'o4-mini-2025-04-16', 1.1, 4.4],
    ['openai', 'gpt-5', 1.25, 10],
    ['openai', 'gpt-5-mini', 0.25, 2],
    ['openai', 'gpt-5-nano-2025-08-07', 0.05, 0.4],
    ['openai', 'gpt-5-chat-latest', 1.25, 10],
  ])('%s %s costs %d / %d per MTok', (provider, model, input, output) => {
    expect(lookupModelPrice(provider, model)).toEqual({ input_per_mtok: input, output_per_mtok: output });
  });

  it.each([
    ['anthropic', 'claude-sonnet-4-9'],
    ['anthropic', 'claude-sonnet-4-5-turbo'],
    ['anthropic', 'gpt-4o'],
    ['openai', 'gpt-4o-audio-preview'],
    ['openai', 'llama3.1'],
    ['openai', 'o3x'],
    ['mistral', 'mistral-large'],
  ])('%s %s has no price', (provider, model) => {
    expect(lookupModelPrice(provider, model)).toBeNull();
  });
});

describe('priceFor', () => {
  it('lets the config price win over the table', () => {
    const price = { input_per_mtok: 1, output_per_mtok: 2 };
    expect(priceFor('anthropic', 'claude-sonnet-4-5', { base_url: null, price })).toEqual(price);
    expect(priceFor('openai', 'llama3.1', { base_url: 'http://127.0.0.1:11434/v1', price })).toEqual(price);
  });

  it('prices offline and self-hosted servers at zero', () => {
    expect(priceFor('offline', 'offline')).toEqual({ input_per_mtok: 0, output_per_mtok: 0 });
    expect(priceFor('openai', 'llama3.1', { base_url: 'http://127.0.0.1:11434/v1', price: null })).toEqual({ input_per_mtok: 0, output_per_mtok: 0 });
    expect(priceFor('openai', 'gpt-4o', { base_url: 'http://vllm.internal:8000/v1', price: null })).toEqual({ input_per_mtok: 0, output_per_mtok: 0 });
  });

  it('keeps the vendor price when base_url is the vendor API itself', () => {
    expect(priceFor('openai', 'gpt-4o', { base_url: 'https://api.openai.com/v1', price: null })).toEqual({ input_per_mtok: 2.5, output_per_mtok: 10 });
    expect(priceFor('anthropic', 'claude-haiku-4-5', { base_url: 'https://api.anthropic.com', price: null })?.input_per_mtok).toBe(1);
  });

  it('returns null for an unknown hosted model, and says how to fix it', () => {
    expect(priceFor('openai', 'gpt-99', hosted)).toBeNull();
    expect(unknownPriceMessage('openai', 'gpt-99')).toMatch(/providers\.openai\.price.*input_per_mtok/);
  });
});

describe('costUsd', () => {
  it('multiplies tokens by the per-million price', () => {
    expect(costUsd({ input_per_mtok: 3, output_per_mtok: 15 }, { prompt_tokens: 1_000_000, completion_tokens: 0 })).toBe(3);
    expect(costUsd({ input_per_mtok: 3, output_per_mtok: 15 }, { prompt_tokens: 1000, completion_tokens: 200 })).toBeCloseTo(0.006, 12);
    expect(costUsd({ input_per_mtok: 0, output_per_mtok: 0 }, { prompt_tokens: 5000, completion_tokens: 5000 })).toBe(0);
  });
});
