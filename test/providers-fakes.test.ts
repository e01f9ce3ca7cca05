import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeAnthropic } from './fakes/anthropic-server.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';

/**
 * The fakes are only useful if they speak the real wire formats. The official SDKs are the judges
 * here: their response and stream parsers must accept what the fakes send. (These tests talk to the
 * fakes directly; the provider tests go through the gateway.)
 */
const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function anthropic(options = {}) {
  const server = await startFakeAnthropic(options);
  servers.push(server);
  return { server, client: new Anthropic({ apiKey: 'test-key', baseURL: server.baseUrl, maxRetries: 0 }) };
}

async function openai(options = {}) {
  const server = await startFakeOpenAI(options);
  servers.push(server);
  return { server, client: new OpenAI({ apiKey: 'test-key', baseURL: server.baseUrl, maxRetries: 0 }) };
}

const plan = { text: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'a long enough query string', n: 3 } }], usage: { input: 42, output: 17 } };

describe('fake Anthropic server', () => {
  it('answers a planned tool call in the Messages format and records the request', async () => {
    const { server, client } = await anthropic();
    server.enqueue(plan);
    const message = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      stop_reason: 'tool_use',
      content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'call_1', name: 'lookup', input: { q: 'a long enough query string', n: 3 } }],
      usage: { input_tokens: 42, output_tokens: 17 },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe('/v1/messages');
    expect(server.requests[0]!.headers['anthropic-version']).toBeTruthy();
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    // Empty queue: a default text reply.
    const second = await client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'again' }] });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]).toMatchObject({ type: 'text' });
  });

  it('streams message_start … message_stop that the SDK reassembles', async () => {
    const { server, client } = await anthropic({ chunkDelayMs: 1 });
    server.enqueue(plan);
    const events: string[] = [];
    const stream = client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    stream.on('streamEvent', (event) => events.push(event.type));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Let me look.' }),
      expect.objectContaining({ type: 'tool_use', id: 'call_1', name: 'lookup', input: { q: 'a long enough query string', n: 3 } }),
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.output_tokens).toBe(17);
    expect(events[0]).toBe('message_start');
    expect(events).toContain('content_block_delta');
    expect(events.at(-1)).toBe('message_stop');
  });

  it('answers planned errors and missing keys in the Anthropic error format', async () => {
    const { server, client } = await anthropic({ requireKey: 'right-key' });
    await expect(client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401 });
    const ok = new Anthropic({ apiKey: 'right-key', baseURL: server.baseUrl, maxRetries: 0 });
    server.enqueue({ error: { status: 529, message: 'Overloaded', type: 'overloaded_error' } });
    await expect(ok.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 529,
      error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
  });
});

describe('fake OpenAI server', () => {
  it('answers a planned tool call in the Chat Completions format', async () => {
    const { server, client } = await openai();
    server.enqueue(plan);
    const completion = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q: 'a long enough query string', n: 3 }) } }],
      },
    });
    expect(completion.usage).toEqual({ prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
  });

  it('streams chunks and [DONE] that the SDK reassembles, with usage when asked', async () => {
    const { server, client } = await openai({ chunkDelayMs: 1 });
    server.enqueue(plan);
    const stream = client.chat.completions.stream({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe('Let me look.');
    expect(completion.choices[0]!.message.tool_calls).toMatchObject([
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ q: 'a long enough query string', n: 3 }) } },
    ]);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(completion.usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 17 });
  });

  it('delays replies when asked, and closes while a request waits', async () => {
    const { server, client } = await openai({ delayMs: 60_000 });
    const pending = client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const outcome = pending.then(() => 'answered', () => 'failed');
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    await server.close();
    servers.length = 0;
    expect(await outcome).toBe('failed');
  });

  it('answers planned errors in the OpenAI error format', async () => {
    const { server, client } = await openai();
    server.enqueue({ error: { status: 429, message: 'Rate limit reached', type: 'rate_limit_error' } });
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 429,
      error: { message: 'Rate limit reached', type: 'rate_limit_error' },
    });
  });
});
