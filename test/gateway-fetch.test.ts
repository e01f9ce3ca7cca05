import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayClient } from '../src/gateway/client.js';
import { createClient } from '../src/gateway/gateway.js';
import { PolicyViolationError } from '../src/gateway/errors.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { startFakeAnthropic } from './fakes/anthropic-server.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { loopbackPolicy, startHttp, tempAudit, type HttpServer } from './gateway-support.js';
import { collectingLogger, quietLogger } from './helpers/log.js';

/**
 * `client.fetch` must be a drop-in `fetch` for the official SDKs: their requests (method, headers,
 * JSON bodies, signals) go out unchanged and their streams arrive as they are produced.
 */
const clients: GatewayClient[] = [];
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function gateway(policy: NetworkPolicy, logLines: string[] = []): GatewayClient {
  const c = createClient({ category: 'provider', sessionId: 's', taskId: 't', timeout: 10_000, policy, log: collectingLogger(logLines) });
  clients.push(c);
  return c;
}

async function fake(start: (o: object) => Promise<FakeLlmServer>, options = {}): Promise<FakeLlmServer> {
  const server = await start(options);
  servers.push(server);
  return server;
}

const plan = { text: 'Hello from upstream, in several pieces.', usage: { input: 5, output: 7 } };

describe('official SDKs over client.fetch', () => {
  it('OpenAI: a completion and a stream', async () => {
    const server = await fake(startFakeOpenAI, { chunkDelayMs: 1 });
    const sdk = new OpenAI({ apiKey: 'test-key', baseURL: server.baseUrl, maxRetries: 0, fetch: gateway(loopbackPolicy([server.port])).fetch });
    server.enqueue(plan, plan);
    const completion = await sdk.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBe(plan.text);
    expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 7 });
    const stream = sdk.chat.completions.stream({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    const deltas: string[] = [];
    stream.on('content.delta', ({ delta }) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(plan.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
    expect(server.requests[0]!.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('Anthropic: a message and a stream', async () => {
    const server = await fake(startFakeAnthropic, { chunkDelayMs: 1 });
    const sdk = new Anthropic({ apiKey: 'test-key', baseURL: server.baseUrl, maxRetries: 0, fetch: gateway(loopbackPolicy([server.port])).fetch });
    server.enqueue(plan, plan);
    const message = await sdk.messages.create({ model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: plan.text });
    const events: string[] = [];
    const stream = sdk.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    stream.on('streamEvent', (event) => events.push(event.type));
    expect((await stream.finalMessage()).content[0]).toMatchObject({ text: plan.text });
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    const { authorization, 'x-api-key': apiKey } = server.requests[0]!.headers;
    expect(String(apiKey ?? authorization)).toContain('test-key');
  });

  it('a refused destination surfaces as the SDK connection error caused by PolicyViolationError', async () => {
    const server = await fake(startFakeOpenAI);
    const sdk = new OpenAI({ apiKey: 'test-key', baseURL: server.baseUrl, maxRetries: 0, fetch: gateway(NetworkPolicy.fromConfig({})).fetch });
    const error = await sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(PolicyViolationError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('client.fetch', () => {
  let server: HttpServer;
  let release: () => void = () => undefined;
  beforeAll(async () => {
    server = await startHttp((req, res) => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        release = () => res.end('data: last\n\n');
        return;
      }
      if (req.url === '/hang') return;
      if (req.url === '/empty') {
        res.writeHead(204, { 'x-empty': 'yes' });
        res.end();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.setHeader('set-cookie', ['a=1', 'b=2']);
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
      });
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('delivers a streamed body as it arrives', async () => {
    const response = await gateway(loopbackPolicy([server.port])).fetch(`${server.url}/stream`);
    const reader = response.body!.getReader();
    const first = await reader.read();
    // The server has not finished: this chunk came through before the response ended.
    expect(Buffer.from(first.value!).toString()).toBe('data: first\n\n');
    release();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += Buffer.from(next.value).toString();
    expect(rest).toBe('data: last\n\n');
  });

  it('takes a Request, keeps method, headers and body, and sets the Host from the URL', async () => {
    const request = new Request(`${server.url}/echo?x=1`, { method: 'PUT', headers: { 'x-custom': 'yes', host: 'evil.example' }, body: 'payload' });
    const response = await gateway(loopbackPolicy([server.port])).fetch(request);
    expect(response.status).toBe(201);
    expect(response.url).toBe(`${server.url}/echo?x=1`);
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const echoed = (await response.json()) as { method: string; url: string; headers: Record<string, string>; body: string };
    expect(echoed).toMatchObject({ method: 'PUT', url: '/echo?x=1', body: 'payload', headers: { 'x-custom': 'yes', host: `127.0.0.1:${server.port}` } });
  });

  it('encodes the body kinds fetch accepts', async () => {
    const c = gateway(loopbackPolicy([server.port]));
    const echo = async (init: RequestInit) => (await (await c.fetch(`${server.url}/echo`, { method: 'POST', ...init })).json()) as { body: string; headers: Record<string, string> };
    expect(await echo({ body: 'text' })).toMatchObject({ body: 'text', headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    expect(await echo({ body: new URLSearchParams({ a: '1' }) })).toMatchObject({ body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' } });
    expect(await echo({ body: new Uint8Array([104, 105]) })).toMatchObject({ body: 'hi' });
    expect(await echo({ body: new Blob(['blob'], { type: 'text/x-blob' }) })).toMatchObject({ body: 'blob', headers: { 'content-type': 'text/x-blob' } });
    const form = new FormData();
    form.set('field', 'value');
    const multipart = await echo({ body: form });
    expect(multipart.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipart.body).toContain('value');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('str'));
        controller.enqueue(new TextEncoder().encode('eam'));
        controller.close();
      },
    });
    expect(await echo({ body: stream, duplex: 'half' } as RequestInit)).toMatchObject({ body: 'stream' });
  });

  it('answers 204 with a null body', async () => {
    const response = await gateway(loopbackPolicy([server.port])).fetch(`${server.url}/empty`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(response.headers.get('x-empty')).toBe('yes');
  });

  it('an aborted signal rejects with an AbortError', async () => {
    const c = gateway(loopbackPolicy([server.port]));
    const controller = new AbortController();
    const pending = c.fetch(`${server.url}/hang`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await expect(c.fetch(`${server.url}/echo`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('drops transport overrides such as an undici dispatcher, by name', async () => {
    const lines: string[] = [];
    const init = { method: 'POST', body: 'x', dispatcher: { secretOption: 'value' }, redirect: 'follow' } as unknown as RequestInit;
    const response = await gateway(loopbackPolicy([server.port]), lines).fetch(`${server.url}/echo`, init);
    expect(response.status).toBe(201);
    expect(lines).toEqual(['gateway: dropped fetch option(s) not on the allowlist: dispatcher']);
  });

  it('is audited once per call', async () => {
    const log = tempAudit();
    try {
      const c = createClient({ category: 'provider', policy: loopbackPolicy([server.port]), audit: log.audit, log: quietLogger });
      clients.push(c);
      await (await c.fetch(`${server.url}/echo`)).text();
      expect(log.events().map((e) => e.event_type)).toEqual(['network_request']);
    } finally {
      log.close();
    }
  });
});
