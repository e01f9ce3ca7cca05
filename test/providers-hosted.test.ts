import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEvent, AuditInput, AuditSink } from '../src/storage/ports/audit.js';
import { configSchema } from '../src/config/schema.js';
import { createClient } from '../src/gateway/index.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { ProviderRequestError, ProviderUnavailableError, createProviderRegistry, type GatewayClientFactory } from '../src/providers/index.js';
import type { ChatMessage, Provider } from '../src/providers/types.js';
import { createToolRegistry } from '../src/tools/index.js';
import { startFakeAnthropic } from './fakes/anthropic-server.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import { quietLogger } from './helpers/log.js';

/**
 * The hosted providers against fake upstreams that speak the real wire formats, through the real
 * gateway client: what we send (tool definitions, tool results, key), what we read back (tool
 * calls, usage), and what happens when the network policy says no.
 */
const KEY = 'sk-test-0123456789abcdefghij-secret';

class RecordingAudit implements AuditSink {
  readonly events: AuditInput[] = [];
  async emit(input: AuditInput): Promise<AuditEvent> {
    this.events.push(input);
    return { id: String(this.events.length), timestamp: new Date().toISOString(), severity: 'info', actor: null, source: null, subsystem: null, action: null, session_id: null, task_id: null, detail: {}, ...input } as AuditEvent;
  }
}

const servers: FakeLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Setup {
  server: FakeLlmServer;
  provider: Provider;
  audit: RecordingAudit;
}

type Vendor = 'anthropic' | 'openai';

async function setup(vendor: Vendor, options: { allow?: boolean; keyEnv?: string | null; env?: Record<string, string> } = {}): Promise<Setup> {
  const server = vendor === 'anthropic' ? await startFakeAnthropic() : await startFakeOpenAI();
  servers.push(server);
  const audit = new RecordingAudit();
  const policy = NetworkPolicy.fromConfig({ provider_allowed_hosts: options.allow === false ? [] : [server.host] });
  const config = configSchema.parse({
    providers: {
      [vendor]: {
        api_key_env: options.keyEnv === undefined ? 'TEST_PROVIDER_KEY' : options.keyEnv,
        model: vendor === 'anthropic' ? 'claude-haiku-4-5' : 'gpt-4.1-mini',
        base_url: server.baseUrl,
      },
    },
  });
  const registry = createProviderRegistry({
    config,
    env: options.env ?? { TEST_PROVIDER_KEY: KEY },
    gatewayClientFactory: (o) => createClient({ ...o, policy, audit, log: quietLogger }),
  });
  return { server, provider: registry.resolve(vendor), audit };
}

// The gateway's own factory fits the providers' and tools' port as is (checked by the compiler).
const gatewayFactory: GatewayClientFactory = createClient;
void gatewayFactory;

const tools = createToolRegistry({
  gatewayClientFactory: () => {
    throw new Error('not used');
  },
});
const signal = () => AbortSignal.timeout(20_000);

/** What each wire format looks like for the same conversation step. */
const wire = {
  anthropic: {
    toolDefinitions: (body: any) => body.tools.map((t: any) => ({ name: t.name, schema: t.input_schema })),
    lastToolResult: (body: any) => {
      const last = body.messages.at(-1);
      expect(last.role).toBe('user');
      const block = last.content.find((b: any) => b.type === 'tool_result');
      return { id: block.tool_use_id, content: block.content, isError: block.is_error === true };
    },
    assistantToolCall: (body: any) => body.messages.at(-2).content.find((b: any) => b.type === 'tool_use'),
    authHeader: (headers: any) => headers['x-api-key'] ?? headers.authorization,
  },
  openai: {
    toolDefinitions: (body: any) => body.tools.map((t: any) => ({ name: t.function.name, schema: t.function.parameters })),
    lastToolResult: (body: any) => {
      const last = body.messages.at(-1);
      expect(last.role).toBe('tool');
      return { id: last.tool_call_id, content: last.content.replace(/^Error: /, ''), isError: last.content.startsWith('Error: ') };
    },
    assistantToolCall: (body: any) => body.messages.at(-2).tool_calls[0],
    authHeader: (headers: any) => headers.authorization,
  },
} as const;

describe.each(['anthropic', 'openai'] as const)('%s provider through the gateway', (vendor) => {
  it('completes a tool-calling round trip with the right wire shapes and usage', async () => {
    const { server, provider, audit } = await setup(vendor);
    server.enqueue(
      { text: 'Let me calculate.', toolCalls: [{ id: 'call_42', name: 'calculator', arguments: { expression: '17*23' } }], usage: { input: 321, output: 45 }, model: `${provider.model}-2025-01-01` },
      { text: '17*23 is 391.', usage: { input: 400, output: 9 } },
    );
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'what is 17*23?' },
    ];
    const first = await provider.complete({ messages, tools: tools.list(), signal: signal(), sessionId: 'sess-1', taskId: 'run-1' });
    expect(first.toolCalls).toEqual([{ id: 'call_42', name: 'calculator', arguments: { expression: '17*23' } }]);
    expect(first.text).toBe('Let me calculate.');
    expect(first.usage).toEqual({ prompt_tokens: 321, completion_tokens: 45 });
    expect(first.model).toBe(`${provider.model}-2025-01-01`);

    const call = first.toolCalls[0]!;
    const result = await tools.execute(call.name, call.arguments, { sessionId: 'sess-1', signal: signal() });
    messages.push({ role: 'assistant', content: first.text, toolCalls: first.toolCalls });
    messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.output, isError: result.isError });
    const final = await provider.complete({ messages, tools: tools.list(), signal: signal(), sessionId: 'sess-1', taskId: 'run-1' });
    expect(final).toEqual({ text: '17*23 is 391.', toolCalls: [], usage: { prompt_tokens: 400, completion_tokens: 9 }, model: provider.model });

    expect(server.requests).toHaveLength(2);
    const [firstRequest, secondRequest] = server.requests;
    expect(firstRequest!.body.model).toBe(provider.model);
    expect(wire[vendor].toolDefinitions(firstRequest!.body)).toEqual(tools.list().map((t) => ({ name: t.name, schema: t.schema })));
    expect(wire[vendor].authHeader(firstRequest!.headers)).toContain(KEY);
    if (vendor === 'anthropic') expect(firstRequest!.body.system).toBe('You are terse.');
    else expect(firstRequest!.body.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });

    expect(wire[vendor].lastToolResult(secondRequest!.body)).toEqual({ id: 'call_42', content: '391', isError: false });
    expect(wire[vendor].assistantToolCall(secondRequest!.body)).toMatchObject({ id: 'call_42' });

    // Every call went through the gateway, audited with the session and run it belongs to.
    const allowed = audit.events.filter((e) => e.event_type === 'network_request');
    expect(allowed).toHaveLength(2);
    expect(allowed[0]).toMatchObject({ result: 'allow', session_id: 'sess-1', task_id: 'run-1' });
    expect(JSON.stringify(audit.events)).not.toContain(KEY);
  });

  it('marks failed tool results as errors in the wire format', async () => {
    const { server, provider } = await setup(vendor);
    server.enqueue({ text: 'It failed.' });
    await provider.complete({
      messages: [
        { role: 'user', content: 'divide' },
        { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'calculator', arguments: { expression: '1/0' } }] },
        { role: 'tool', toolCallId: 't1', name: 'calculator', content: 'division by zero', isError: true },
      ],
      tools: tools.list(),
      signal: signal(),
    });
    const body = server.requests[0]!.body;
    expect(wire[vendor].lastToolResult(body)).toEqual({ id: 't1', content: 'division by zero', isError: true });
    if (vendor === 'openai') expect(body.messages.at(-1).content).toBe('Error: division by zero');
  });

  it('is refused by network policy before any byte is sent', async () => {
    const { server, provider, audit } = await setup(vendor, { allow: false });
    const attempt = provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: signal() });
    await expect(attempt).rejects.toBeInstanceOf(ProviderRequestError);
    await expect(attempt).rejects.toMatchObject({ kind: 'policy', message: expect.stringMatching(/blocked by network policy.*provider_allowed_hosts/) });
    await attempt.catch((err: Error) => expect(err.message).not.toContain(KEY));
    expect(server.requests).toHaveLength(0);
    expect(audit.events.some((e) => e.event_type === 'network_denied' && e.result === 'deny')).toBe(true);
  });

  it('reports a rejected key without repeating it, and does not retry', async () => {
    const { server, provider } = await setup(vendor);
    server.enqueue({ error: { status: 401, message: `invalid key ${KEY}`, type: 'authentication_error' } });
    const attempt = provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: signal() });
    await expect(attempt).rejects.toMatchObject({ kind: 'auth', status: 401, message: expect.stringMatching(/rejected the credentials.*TEST_PROVIDER_KEY/) });
    await attempt.catch((err: Error) => expect(err.message).not.toContain(KEY));

    server.enqueue({ error: { status: 500, message: 'upstream broke', type: 'api_error' } });
    await expect(provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: signal() })).rejects.toMatchObject({
      kind: 'upstream',
      status: 500,
      message: expect.stringContaining('upstream broke'),
    });
    expect(server.requests).toHaveLength(2);
  });

  it('stops waiting when the run is cancelled', async () => {
    const { server, provider } = await setup(vendor);
    server.setDelay(60_000);
    const controller = new AbortController();
    const attempt = provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: controller.signal });
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    await expect(attempt).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('is unavailable without its key and says which variable to set', async () => {
    const server = vendor === 'anthropic' ? await startFakeAnthropic() : await startFakeOpenAI();
    servers.push(server);
    const registry = createProviderRegistry({
      config: configSchema.parse({}),
      env: {},
      gatewayClientFactory: () => {
        throw new Error('not used');
      },
    });
    expect(registry.get(vendor)!.available()).toBe(false);
    expect(() => registry.resolve(vendor)).toThrow(ProviderUnavailableError);
    expect(() => registry.resolve(vendor)).toThrow(vendor === 'anthropic' ? /set ANTHROPIC_API_KEY/ : /set OPENAI_API_KEY/);
    await expect(registry.get(vendor)!.complete({ messages: [{ role: 'user', content: 'x' }], tools: [], signal: signal() })).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('self-hosted OpenAI-compatible server', () => {
  it('works without any key (Ollama style) and costs nothing', async () => {
    const { server, provider } = await setup('openai', { keyEnv: null, env: {} });
    expect(provider.available()).toBe(true);
    server.enqueue({ text: 'local answer', usage: { input: 5, output: 2 } });
    const result = await provider.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: signal() });
    expect(result.text).toBe('local answer');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer unused');
    expect(server.requests[0]!.body.tools).toBeUndefined();
  });
});

describe('per-request override through the registry', () => {
  it('uses the named provider for one call and leaves the default alone', async () => {
    const server = await startFakeAnthropic();
    servers.push(server);
    const policy = NetworkPolicy.fromConfig({ provider_allowed_hosts: [server.host] });
    const registry = createProviderRegistry({
      config: configSchema.parse({ providers: { anthropic: { api_key_env: 'K', model: 'claude-haiku-4-5', base_url: server.baseUrl } } }),
      env: { K: KEY },
      gatewayClientFactory: (o) => createClient({ ...o, policy, log: quietLogger }),
    });
    server.enqueue({ text: 'from claude' });
    const result = await registry.resolve('anthropic').complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: signal() });
    expect(result.text).toBe('from claude');
    expect(registry.default).toBe('offline');
    expect((await registry.resolve().complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: signal() })).model).toBe('offline');
    expect(server.requests).toHaveLength(1);
  });
});
