import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../src/config/schema.js';
import { createClient } from '../src/gateway/index.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { ProviderRequestError, createProviderRegistry, type Provider } from '../src/providers/index.js';
import { quietLogger } from './helpers/log.js';

/**
 * The hosted providers reading their streams from a server on 127.0.0.1 that writes the wire
 * formats by hand: one very long event, many small ones, and errors in the stream; through the
 * real gateway client.
 */
const MiB = 1024 * 1024;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => {
    s.closeAllConnections();
    s.close(resolve);
  })));
});

const event = (delta: unknown) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini-2025-04-14', choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini-2025-04-14', choices: [], usage: { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 } })}\n\n`;

/** The Messages API's stream of `text` in one delta, with a ping, and its usage. */
const messageStream = (text: string) => [
  ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-haiku-4-5-20251001', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['ping', { type: 'ping' }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 34 } }],
  ['message_stop', { type: 'message_stop' }],
].map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');

/** A provider whose upstream answers each streamed request with `answer(res)`. */
async function providerOn(answer: (res: ServerResponse) => unknown, maxResponseBytes?: number, vendor: 'openai' | 'anthropic' = 'openai'): Promise<Provider> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void answer(res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const policy = NetworkPolicy.fromConfig({ provider_allowed_hosts: [host] });
  const registry = createProviderRegistry({
    config: configSchema.parse({ providers: { [vendor]: { api_key_env: 'KEY', model: vendor === 'openai' ? 'gpt-4.1-mini' : 'claude-haiku-4-5', base_url: `http://${host}${vendor === 'openai' ? '/v1' : ''}` } } }),
    env: { KEY: 'sk-test-0123456789abcdefghij' },
    gatewayClientFactory: (o) => createClient({ ...o, policy, log: quietLogger, ...(maxResponseBytes ? { maxResponseBytes } : {}) }),
  });
  return registry.resolve(vendor);
}

const ask = (provider: Provider, onText?: (delta: string) => void) =>
  provider.complete({ messages: [{ role: 'user', content: 'write a lot' }], tools: [], signal: AbortSignal.timeout(30_000), onText });

describe('OpenAI-compatible provider stream', () => {
  // About a second on a busy machine; the SDK's decoder, which searches everything buffered again on
  // each network chunk, takes 10 s on an idle machine and more than 30 s on a busy one: such a
  // reader fails this test by its time-out.
  it('reads a 16 MiB answer sent as one event without searching it again per chunk', { timeout: 20_000 }, async () => {
    const text = 'a'.repeat(16 * MiB);
    const stream = Buffer.from(`${event({ role: 'assistant', content: '' })}${event({ content: text })}${usage}data: [DONE]\n\n`);
    const provider = await providerOn((res) => res.end(stream));
    const deltas: number[] = [];
    const result = await ask(provider, (delta) => deltas.push(delta.length));
    expect(result.text.length).toBe(16 * MiB);
    expect(result.text).toBe(text);
    expect(deltas).toEqual([16 * MiB]);
    expect(result.usage).toEqual({ prompt_tokens: 12, completion_tokens: 34 });
    expect(result.model).toBe('gpt-4.1-mini-2025-04-14');
  });

  it('streams a 16 MiB answer sent in 4 KiB events: the first delta arrives while the rest is still to be sent', async () => {
    const piece = 'b'.repeat(4096);
    let firstDelta!: () => void;
    const firstDeltaSeen = new Promise<void>((resolve) => (firstDelta = resolve));
    const provider = await providerOn(async (res) => {
      res.write(event({ role: 'assistant', content: '' }) + event({ content: piece }));
      // The rest is sent only once the provider has handed the first piece on.
      await firstDeltaSeen;
      for (let i = 1; i < 4096; i++) if (!res.write(event({ content: piece }))) await new Promise((resolve) => res.once('drain', resolve));
      res.end(`${usage}data: [DONE]\n\n`);
    });
    let deltas = 0;
    const result = await ask(provider, () => {
      if (++deltas === 1) firstDelta();
    });
    expect(deltas).toBe(4096);
    expect(result.text.length).toBe(16 * MiB);
    expect(result.text).toBe(piece.repeat(4096));
  });

  it('fails the call with the upstream message when the stream reports an error', async () => {
    const provider = await providerOn((res) => res.end(`${event({ role: 'assistant', content: 'partial' })}data: {"error":{"message":"model overloaded","type":"server_error"}}\n\n`));
    const attempt = ask(provider);
    await expect(attempt).rejects.toBeInstanceOf(ProviderRequestError);
    await expect(attempt).rejects.toMatchObject({ kind: 'upstream', message: expect.stringContaining('model overloaded') });
  });

  it('fails the call, naming the cause, when an event is not JSON', async () => {
    const provider = await providerOn((res) => res.end(`${event({ role: 'assistant', content: '' })}data: {"choices": [\n\n`));
    await expect(ask(provider)).rejects.toMatchObject({ kind: 'upstream', message: expect.stringContaining('a streamed event is not JSON') });
  });

  it('fails the call when one event passes the response cap, as any stream that does', async () => {
    const provider = await providerOn((res) => res.end(`${event({ content: 'c'.repeat(2 * MiB) })}data: [DONE]\n\n`), MiB);
    const attempt = ask(provider);
    await expect(attempt).rejects.toBeInstanceOf(ProviderRequestError);
    await expect(attempt).rejects.toMatchObject({ kind: 'invalid_response' });
  });

  it('ignores what follows [DONE]', async () => {
    const provider = await providerOn((res) => res.end(`${event({ content: 'kept' })}data: [DONE]\n\n${event({ content: ' ignored' })}`));
    expect((await ask(provider)).text).toBe('kept');
  });
});

describe('Anthropic provider stream', () => {
  // Read by the SDK's own decoder, which is linear too: the same time-out as the OpenAI-compatible one.
  it('reads a 16 MiB answer sent as one event, skipping pings, with the usage', { timeout: 20_000 }, async () => {
    const text = 'a'.repeat(16 * MiB);
    const stream = Buffer.from(messageStream(text));
    const provider = await providerOn((res) => res.end(stream), undefined, 'anthropic');
    const result = await ask(provider);
    expect(result.text).toBe(text);
    expect(result.usage).toEqual({ prompt_tokens: 12, completion_tokens: 34 });
    expect(result.model).toBe('claude-haiku-4-5-20251001');
  });

  it('fails the call with the upstream message on an error event', async () => {
    const provider = await providerOn((res) => res.end(`${messageStream('').split('event: content_block_delta')[0]}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`), undefined, 'anthropic');
    const attempt = ask(provider);
    await expect(attempt).rejects.toBeInstanceOf(ProviderRequestError);
    await expect(attempt).rejects.toMatchObject({ kind: 'upstream', message: expect.stringContaining('Overloaded') });
  });
});
