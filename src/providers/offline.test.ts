import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../tools/index.js';
import { detectIntents, resolveTimeZone } from './offline-intents.js';
import { OfflineProvider } from './offline.js';
import type { ChatMessage, CompletionResult, ToolSpec } from './types.js';

const tools = createToolRegistry({
  gatewayClientFactory: () => {
    throw new Error('the offline provider must not reach the network');
  },
  now: () => new Date('2025-01-15T12:00:00.000Z'),
});
const signal = new AbortController().signal;
const provider = new OfflineProvider();

/** Plays the agent loop: ask, run the requested tools for real, ask again. */
async function converse(text: string, specs: ToolSpec[] = tools.list()) {
  const messages: ChatMessage[] = [{ role: 'user', content: text }];
  const first = await provider.complete({ messages, tools: specs, signal });
  if (first.toolCalls.length === 0) return { first, final: first, messages };
  messages.push({ role: 'assistant', content: first.text, toolCalls: first.toolCalls });
  for (const call of first.toolCalls) {
    const result = await tools.execute(call.name, call.arguments, { sessionId: 's', signal });
    messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.output, isError: result.isError });
  }
  const final = await provider.complete({ messages, tools: specs, signal });
  return { first, final, messages };
}

function expectHonestUsage(result: CompletionResult, messages: ChatMessage[]) {
  expect(result.usage.prompt_tokens).toBeGreaterThan(0);
  expect(result.usage.completion_tokens).toBeGreaterThan(0);
  const inputChars = messages.reduce((n, m) => n + m.content.length + (m.role === 'assistant' && m.toolCalls?.length ? JSON.stringify(m.toolCalls).length : 0), 0);
  expect(result.usage.prompt_tokens).toBe(Math.ceil(inputChars / 4));
}

describe('OfflineProvider', () => {
  it('streams its answer a few words at a time to onText; the pieces add up to the text', async () => {
    const pieces: string[] = [];
    const result = await provider.complete({ messages: [{ role: 'user', content: 'hello' }], tools: [], signal, onText: (text) => pieces.push(text) });
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(result.text);
    expect(pieces[0]!.trim().split(/\s+/)).toHaveLength(4);
  });

  it('is always available, named offline', () => {
    expect(provider.available()).toBe(true);
    expect(provider.unavailableReason()).toBeNull();
    expect(provider.model).toBe('offline');
  });

  it('asks current_time for Tokyo, then answers with the local time', async () => {
    const { first, final, messages } = await converse('what time is it in Tokyo?');
    expect(first.toolCalls).toEqual([{ id: expect.any(String), name: 'current_time', arguments: { timezone: 'Asia/Tokyo' } }]);
    expect(first.text).toBe('');
    expect(final.toolCalls).toEqual([]);
    expect(final.text).toContain('Asia/Tokyo');
    expect(final.text).toContain('9:00:00 PM');
    expect(final.model).toBe('offline');
    expectHonestUsage(first, messages.slice(0, 1));
    expect(final.usage.prompt_tokens).toBeGreaterThan(first.usage.prompt_tokens);
    expect(final.usage.completion_tokens).toBe(Math.ceil(final.text.length / 4));
  });

  it('asks the calculator for 17*23, then answers 391', async () => {
    const { first, final } = await converse('what is 17*23?');
    expect(first.toolCalls).toMatchObject([{ name: 'calculator', arguments: { expression: '17*23' } }]);
    expect(final.text).toContain('391');
  });

  it('reports a failing tool honestly', async () => {
    const { final } = await converse('calculate 1/0');
    expect(final.text).toMatch(/calculator tool failed: division by zero/);
  });

  it('explains offline mode and how to configure a real provider for anything else', async () => {
    const { first } = await converse('Write me a poem about the sea');
    expect(first.toolCalls).toEqual([]);
    expect(first.text).toMatch(/offline provider/);
    expect(first.text).toMatch(/providers\.default/);
    expect(first.text).toMatch(/ANTHROPIC_API_KEY|OPENAI_API_KEY/);
    expect(first.text).toMatch(/base_url/);
    expect(first.usage.completion_tokens).toBe(Math.ceil(first.text.length / 4));
    expect(first.usage.prompt_tokens).toBe(Math.ceil('Write me a poem about the sea'.length / 4));
  });

  it('only calls tools offered in the request', async () => {
    const withoutCalculator = tools.list().filter((t) => t.name !== 'calculator');
    const { first } = await converse('what is 17*23?', withoutCalculator);
    expect(first.toolCalls).toEqual([]);
    expect(first.text).toMatch(/calculator tool .* not available/);
    const none = await converse('what time is it in Tokyo?', []);
    expect(none.first.toolCalls).toEqual([]);
  });

  it('asks memory_search and web_fetch when offered', async () => {
    const specs: ToolSpec[] = [
      ...tools.list(),
      { name: 'memory_search', description: 'search memory', schema: { type: 'object', properties: { query: { type: 'string' } } } },
    ];
    const memory = await provider.complete({ messages: [{ role: 'user', content: 'search memory for invoice numbers' }], tools: specs, signal });
    expect(memory.toolCalls).toMatchObject([{ name: 'memory_search', arguments: { query: 'invoice numbers' } }]);
    const said = await provider.complete({ messages: [{ role: 'user', content: 'What did I say about the Lisbon trip?' }], tools: specs, signal });
    expect(said.toolCalls).toMatchObject([{ name: 'memory_search', arguments: { query: 'Lisbon trip' } }]);
    const fetch = await provider.complete({ messages: [{ role: 'user', content: 'fetch https://example.com/x.' }], tools: specs, signal });
    expect(fetch.toolCalls).toMatchObject([{ name: 'web_fetch', arguments: { url: 'https://example.com/x' } }]);
  });

  it('is deterministic', async () => {
    const a = await converse('what is 2^10?');
    const b = await converse('what is 2^10?');
    expect(a.final).toEqual(b.final);
    expect(a.first.toolCalls[0]!.id).toBe(b.first.toolCalls[0]!.id);
  });

  it('honours cancellation', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: controller.signal })).rejects.toThrow();
  });
});

describe('detectIntents', () => {
  it.each([
    ['what time is it?', { tool: 'current_time', args: {} }],
    ["what's the date today?", { tool: 'current_time', args: {} }],
    ['what day is it in Sydney?', { tool: 'current_time', args: { timezone: 'Australia/Sydney' } }],
    ["What's the time in New York right now?", { tool: 'current_time', args: { timezone: 'America/New_York' } }],
    ['current time in Europe/Madrid', { tool: 'current_time', args: { timezone: 'Europe/Madrid' } }],
    ['what time is it in São Paulo', { tool: 'current_time', args: { timezone: 'America/Sao_Paulo' } }],
    ['what time is it in Atlantis?', { tool: 'current_time', args: {}, unknownPlace: 'Atlantis' }],
    ['What is (3 + 4) * 2?', { tool: 'calculator', args: { expression: '(3 + 4) * 2' } }],
    ['how much is 12 times 7', { tool: 'calculator', args: { expression: '12 * 7' } }],
    ['2+2', { tool: 'calculator', args: { expression: '2+2' } }],
    ['what is sqrt(2)', { tool: 'calculator', args: { expression: 'sqrt(2)' } }],
  ])('%s', (text, intent) => {
    expect(detectIntents(text)).toEqual([intent]);
  });

  it.each(['hello', 'what is love?', 'what happened on 2024-01-01 in history', 'what is 3 apples'])('%s asks for no tool', (text) => {
    expect(detectIntents(text)).toEqual([]);
  });

  it('resolves places to zones', () => {
    expect(resolveTimeZone('Tokyo')).toBe('Asia/Tokyo');
    expect(resolveTimeZone('the UK')).toBe('Europe/London');
    expect(resolveTimeZone('los angeles')).toBe('America/Los_Angeles');
    expect(resolveTimeZone('Nowhere')).toBeUndefined();
  });
});
