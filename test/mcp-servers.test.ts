import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../src/config/schema.js';
import { startFakeOpenAI, type FakeLlmServer } from './fakes/openai-server.js';
import { startHttpMcpServer, type HttpMcpServer } from './fakes/mcp-http-server.js';
import { eventually, finishedRun, json, postJson, readEvents, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';

/**
 * MCP tool servers end to end: a real MCP server (the SDK's server side) over stdio and over
 * Streamable HTTP on 127.0.0.1, called by a wire-format fake OpenAI server through the real app.
 */
const STDIO_SERVER = fileURLToPath(new URL('./fakes/mcp-tool-server.mjs', import.meta.url));
const OPENAI_KEY = 'sk-test-openai-key-000000000000';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function llm(): Promise<FakeLlmServer> {
  const server = await startFakeOpenAI();
  cleanups.push(() => server.close());
  return server;
}

async function mcpHttp(): Promise<HttpMcpServer> {
  const server = await startHttpMcpServer();
  cleanups.push(() => server.close());
  return server;
}

function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'agentd-mcp-'));
  cleanups.push(async () => rmSync(home, { recursive: true, force: true }));
  return home;
}

type McpServerInput = NonNullable<NonNullable<ConfigInput['mcp']>['servers']>[number];

interface AppSetup {
  llm: FakeLlmServer;
  servers: McpServerInput[];
  mcpHosts?: string[];
  toolHosts?: string[];
  env?: Record<string, string>;
  home?: string;
  storage?: ConfigInput['storage'];
  restPolicies?: { host: string; method: string; path: string; action: 'allow' | 'deny' }[];
}

/** The real app with the fake OpenAI server as its provider and the given MCP servers; closed after the test. */
async function startApp(setup: AppSetup): Promise<TestApp> {
  const t = await startTestApp({
    home: setup.home,
    env: { OPENAI_API_KEY: OPENAI_KEY, ...setup.env },
    mcpBackoff: { initialMs: 50, maxMs: 200 },
    config: {
      providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: setup.llm.baseUrl } },
      network: {
        allowed_hosts: [setup.llm.host], mcp_allowed_hosts: setup.mcpHosts ?? [], tool_allowed_hosts: setup.toolHosts ?? [], rest_policies: setup.restPolicies ?? [],
      },
      mcp: { servers: setup.servers },
      ...(setup.storage ? { storage: setup.storage } : {}),
    },
  });
  let closed = false;
  const close = t.close;
  t.close = async () => {
    if (closed) return;
    closed = true;
    await close();
  };
  cleanups.push(() => t.close());
  return t;
}

const stdioServer = (name: string, extra: Partial<McpServerInput> = {}): McpServerInput => ({ name, command: process.execPath, args: [STDIO_SERVER], ...extra });

async function toolList(t: TestApp): Promise<{ name: string; description: string; schema: Record<string, unknown>; server: string | null }[]> {
  return (await json(await t.request('/api/v1/tools'))).data.tools;
}

/** Waits until the app offers `name` (a server connects in the background). */
async function offered(t: TestApp, name: string) {
  return eventually(async () => (await toolList(t)).find((tool) => tool.name === name));
}

async function auditEvents(t: TestApp, eventType: string): Promise<any[]> {
  return (await json(await t.request(`/api/v1/audit?event_type=${encodeURIComponent(eventType)}&limit=100`))).data.events;
}

/** The tool results the model was sent, in order (the last request carries them all). */
function toolResultsSent(server: FakeLlmServer): string[] {
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: string }[];
  return messages.filter((message) => message.role === 'tool').map((message) => message.content);
}

describe('MCP servers over stdio', () => {
  it('offers the server\'s tools as mcp.<server>.<tool>; a call from the provider reaches the server and its result reaches the run', async () => {
    const provider = await llm();
    const t = await startApp({ llm: provider, servers: [stdioServer('local')] });
    const add = await offered(t, 'mcp.local.add');
    expect(add).toMatchObject({ server: 'local', description: 'Adds two numbers', schema: { type: 'object', required: ['a', 'b'] } });
    expect(add.schema).not.toHaveProperty('$schema');
    expect((await toolList(t)).find((tool) => tool.name === 'calculator')).toMatchObject({ server: null });

    provider.enqueue({ toolCalls: [{ name: 'mcp__local__add', arguments: { a: 2, b: 40 } }] }, { text: 'The sum is 42.' });
    const run = await startRun(t, { message: 'add 2 and 40' });
    const { events } = await readEvents(t, run.run_id);
    const request = events.find((event) => event.event === 'tool.request');
    expect(JSON.parse(request!.data)).toMatchObject({ tool: 'mcp.local.add', arguments: { a: 2, b: 40 } });
    expect(JSON.parse(events.find((event) => event.event === 'tool.result')!.data)).toMatchObject({ tool: 'mcp.local.add', is_error: false });
    const finished = await finishedRun(t, run.run_id);
    expect(finished).toMatchObject({ status: 'complete', response: 'The sum is 42.', tools_used: ['mcp.local.add'] });
    // The provider saw the wire name with the server's schema, and got the server's answer back.
    const offeredTools = provider.requests[0]!.body.tools as { function: { name: string; parameters: unknown } }[];
    expect(offeredTools.find((tool) => tool.function.name === 'mcp__local__add')?.function.parameters).toMatchObject({ required: ['a', 'b'] });
    expect(toolResultsSent(provider)).toEqual(['sum=42']);
  });

  it('validates arguments against the server\'s schema: a wrong one goes back to the model as an error', async () => {
    const provider = await llm();
    const t = await startApp({ llm: provider, servers: [stdioServer('local')] });
    await offered(t, 'mcp.local.add');
    provider.enqueue({ toolCalls: [{ name: 'mcp__local__add', arguments: { a: 'two', b: 40 } }] }, { text: 'could not add' });
    const run = await startRun(t, { message: 'add two and 40' });
    expect(await finishedRun(t, run.run_id)).toMatchObject({ status: 'complete' });
    // The OpenAI wire format marks an error result with "Error: ".
    expect(toolResultsSent(provider)).toEqual(["Error: invalid arguments for mcp.local.add: argument 'a' must be number, got string"]);
  });

  it('gives the server only the env_allow variables: not a secret of the service, not even PATH', async () => {
    const provider = await llm();
    const t = await startApp({
      llm: provider,
      // `constructor` is a valid variable name, and unset: the service's environment object inherits one, which is not a variable.
      servers: [stdioServer('local', { env_allow: ['MCP_VISIBLE', 'constructor'] })],
      env: { MCP_VISIBLE: 'shown-to-the-server', MCP_HIDDEN_SECRET: 'never-shown', PATH: '/usr/bin:/bin' },
    });
    await offered(t, 'mcp.local.read_env');
    provider.enqueue(
      { toolCalls: ['MCP_VISIBLE', 'MCP_HIDDEN_SECRET', 'PATH', 'OPENAI_API_KEY', 'constructor'].map((name) => ({ name: 'mcp__local__read_env', arguments: { name } })) },
      { text: 'read' },
    );
    const run = await startRun(t, { message: 'read the environment' });
    expect(await finishedRun(t, run.run_id)).toMatchObject({ status: 'complete' });
    expect(toolResultsSent(provider)).toEqual(['shown-to-the-server', '<unset>', '<unset>', '<unset>', '<unset>']);
  });

  it('restarts a server that exits, with back-off, and offers its tools again', async () => {
    const provider = await llm();
    const t = await startApp({ llm: provider, servers: [stdioServer('local')] });
    await offered(t, 'mcp.local.crash');
    provider.enqueue({ toolCalls: [{ name: 'mcp__local__crash', arguments: {} }] }, { text: 'first' });
    await finishedRun(t, (await startRun(t, { message: 'crash it' })).run_id);
    const [first] = toolResultsSent(provider);
    expect(first).toMatch(/^pid=\d+$/);
    // The process is gone; once the new one is connected, the same tool answers from another pid.
    await eventually(() => t.app.mcp.status('local')?.state !== 'connected');
    await eventually(() => t.app.mcp.status('local')?.state === 'connected');
    provider.enqueue({ toolCalls: [{ name: 'mcp__local__crash', arguments: {} }] }, { text: 'second' });
    await finishedRun(t, (await startRun(t, { message: 'crash it again' })).run_id);
    const [second] = toolResultsSent(provider);
    expect(second).toMatch(/^pid=\d+$/);
    expect(second).not.toBe(first);
  });

  it('records a command that cannot be started and keeps retrying, while the service serves', async () => {
    const provider = await llm();
    const t = await startApp({ llm: provider, servers: [{ name: 'missing', command: '/nonexistent/mcp-server' }] });
    const status = await eventually(() => t.app.mcp.status('missing')?.last_error?.includes('ENOENT') && t.app.mcp.status('missing'));
    expect(status).toMatchObject({ state: 'disconnected', connected: false, tool_count: 0, last_error: 'spawn /nonexistent/mcp-server ENOENT' });
    expect((await t.request('/api/v1/health')).status).toBe(200);
  });
});

describe('MCP servers over Streamable HTTP', () => {
  it('reaches an allowed server through the gateway: its allowed tools are offered, a provider\'s call gets the server\'s answer, each request audited', async () => {
    const provider = await llm();
    const mcp = await mcpHttp();
    const t = await startApp({ llm: provider, servers: [{ name: 'remote', url: mcp.url, allowed_tools: ['add', 'read_env'] }], mcpHosts: [mcp.host] });
    expect(await offered(t, 'mcp.remote.add')).toMatchObject({ server: 'remote' });
    // allowed_tools leaves the server's other tools out.
    expect((await toolList(t)).filter((tool) => tool.server === 'remote').map((tool) => tool.name)).toEqual(['mcp.remote.add', 'mcp.remote.read_env']);
    provider.enqueue({ toolCalls: [{ name: 'mcp__remote__add', arguments: { a: 20, b: 22 } }] }, { text: 'done' });
    const run = await startRun(t, { message: 'add remotely' });
    expect(await finishedRun(t, run.run_id)).toMatchObject({ status: 'complete', tools_used: ['mcp.remote.add'] });
    expect(toolResultsSent(provider)).toEqual(['sum=42']);
    const requests = (await auditEvents(t, 'network_request')).filter((event) => event.detail?.url?.startsWith(mcp.url));
    expect(requests.length).toBeGreaterThanOrEqual(3);
    expect(requests.every((event) => event.result === 'allow')).toBe(true);
    // The long-lived GET stream is declined inside the service and never sent.
    expect(mcp.requests.every((line) => line === 'POST /mcp')).toBe(true);
  });

  it('never contacts a server whose host the policy denies for mcp, even when the tool list allows it', async () => {
    const provider = await llm();
    const mcp = await mcpHttp();
    const t = await startApp({ llm: provider, servers: [{ name: 'remote', url: mcp.url }], toolHosts: [mcp.host] });
    const status = await eventually(() => t.app.mcp.status('remote')?.last_error?.startsWith('blocked by network policy') && t.app.mcp.status('remote'));
    // The tool list names the address exactly; for mcp nothing does, so the address rules refuse it.
    expect(status).toMatchObject({ connected: false, tool_count: 0, last_error: 'blocked by network policy: loopback address 127.0.0.1 is not allowed' });
    // Retried with back-off, refused every time before any connection, each refusal audited.
    const denials = await eventually(async () => {
      const events = (await auditEvents(t, 'network_denied')).filter((event) => event.detail?.category === 'mcp');
      return events.length >= 2 && events;
    });
    expect(denials[0]).toMatchObject({ result: 'deny', detail: { host: '127.0.0.1', category: 'mcp' } });
    expect(mcp.requests).toEqual([]);
    expect((await toolList(t)).some((tool) => tool.server !== null)).toBe(false);
    const diagnostics = (await json(await t.request('/api/v1/diagnostics'))).data;
    const check = diagnostics.sections.find((section: { key: string }) => section.key === 'tools').checks.find((c: { name: string }) => c.name === 'mcp:remote');
    expect(check).toMatchObject({ status: 'warn', summary: expect.stringContaining('loopback address 127.0.0.1 is not allowed') });
  });

  it('applies the REST rules to an allowed MCP host: a denied path is never requested', async () => {
    const provider = await llm();
    const mcp = await mcpHttp();
    const t = await startApp({
      llm: provider, servers: [{ name: 'remote', url: mcp.url }], mcpHosts: [mcp.host],
      restPolicies: [{ host: '127.0.0.1', method: 'POST', path: '/mcp', action: 'deny' }],
    });
    const status = await eventually(() => t.app.mcp.status('remote')?.last_error?.startsWith('blocked by network policy') && t.app.mcp.status('remote'));
    expect(status).toMatchObject({ connected: false, tool_count: 0 });
    const [denied] = (await auditEvents(t, 'network_denied')).filter((event) => event.detail?.category === 'mcp');
    expect(denied).toMatchObject({ result: 'deny', detail: { stage: 'rest', rule: expect.stringContaining('rest_policies') } });
    expect(mcp.requests).toEqual([]);
  });
});

describe('pinned manifests', () => {
  it('pins the first tool list; a changed one disables the server\'s tools until the operator accepts it', async () => {
    const provider = await llm();
    const mcp = await mcpHttp();
    const home = tempHome();
    const setup = { llm: provider, servers: [{ name: 'remote', url: mcp.url }], mcpHosts: [mcp.host], home };

    const first = await startApp(setup);
    await offered(first, 'mcp.remote.add');
    const [pinned] = await auditEvents(first, 'mcp.manifest_pinned');
    expect(pinned).toMatchObject({ result: 'allow', detail: { server: 'remote', tools: ['add', 'crash', 'read_env', 'redescribe'] } });
    const pinnedDigest = first.app.mcp.status('remote')!.pinned_digest;
    expect(pinnedDigest).toBe(pinned.detail.digest);
    await first.close();

    // The server now describes `add` differently.
    mcp.variant = 'v2';
    const second = await startApp(setup);
    const changed = await eventually(() => second.app.mcp.status('remote')?.state === 'manifest_changed' && second.app.mcp.status('remote'));
    expect(changed).toMatchObject({ connected: true, tool_count: 0, pinned_digest: pinnedDigest, manifest_change: '1 changed (add)' });
    expect((await toolList(second)).some((tool) => tool.server === 'remote')).toBe(false);
    const [audited] = await auditEvents(second, 'mcp.manifest_changed');
    expect(audited).toMatchObject({ result: 'deny', severity: 'warning', detail: { server: 'remote', pinned_digest: pinnedDigest, changed: ['add'], added: [], removed: [] } });
    const diagnostics = (await json(await second.request('/api/v1/diagnostics'))).data;
    const check = diagnostics.sections.find((section: { key: string }) => section.key === 'tools').checks.find((c: { name: string }) => c.name === 'mcp:remote');
    const prefix = changed!.manifest_review!.pending_digest.slice(0, 16);
    expect(check).toMatchObject({ status: 'warn', summary: expect.stringContaining('1 changed (add)'), remediation: expect.stringContaining(`accept-manifest:remote:${prefix}`) });
    expect(check.detail).toContain('    - Adds two numbers\n    + Adds two numbers and reports them to a collector');
    // A model asking for the withdrawn tool gets an error, and nothing reaches the server.
    const before = mcp.requests.length;
    provider.enqueue({ toolCalls: [{ name: 'mcp__remote__add', arguments: { a: 1, b: 2 } }] }, { text: 'no' });
    await finishedRun(second, (await startRun(second, { message: 'add' })).run_id);
    expect(toolResultsSent(provider)[0]).toMatch(/^Error: unknown tool 'mcp__remote__add'/);
    expect(mcp.requests.length).toBe(before);

    const control = (await json(await second.request('/api/v1/controls'))).data.controls.find((c: { id: string }) => c.id === 'mcp.accept_manifest');
    expect(control).toMatchObject({
      confirm_template: 'accept-manifest:<server>:<first 16 hex of the pending digest>',
      targets: [{ target: 'remote', state: 'manifest_changed', available: true, confirm: `accept-manifest:remote:${prefix}`, detail: check.detail }],
    });
    const wrong = await postJson(second, '/api/v1/controls/mcp.accept_manifest', { target: 'remote', confirm: 'accept-manifest:other' });
    expect(wrong.status).toBe(409);
    expect((await toolList(second)).some((tool) => tool.server === 'remote')).toBe(false);
    const accepted = await postJson(second, '/api/v1/controls/mcp.accept_manifest', { target: 'remote', confirm: `accept-manifest:remote:${prefix}` });
    expect(accepted.status).toBe(200);
    const newDigest = second.app.mcp.status('remote')!.pinned_digest;
    expect((await json(accepted)).data).toMatchObject({ control: 'mcp.accept_manifest', target: 'remote', previous: pinnedDigest, current: newDigest });
    expect(newDigest).not.toBe(pinnedDigest);
    expect((await offered(second, 'mcp.remote.add')).description).toBe('Adds two numbers and reports them to a collector');
    const controlEvents = await auditEvents(second, 'web.control');
    expect(controlEvents.map((event) => [event.result, event.detail.control, event.detail.target])).toEqual(
      expect.arrayContaining([['deny', 'mcp.accept_manifest', 'remote'], ['allow', 'mcp.accept_manifest', 'remote']]),
    );
    // Accepting again has nothing to accept.
    expect((await postJson(second, '/api/v1/controls/mcp.accept_manifest', { target: 'remote', confirm: `accept-manifest:remote:${prefix}` })).status).toBe(409);
    await second.close();

    // The accepted list is the pin from now on.
    const third = await startApp(setup);
    await offered(third, 'mcp.remote.add');
    expect(third.app.mcp.status('remote')).toMatchObject({ state: 'connected', pinned_digest: newDigest, manifest_change: null });
  });

  it('withdraws the tools at once when a connected server rewords one (tools/list_changed)', async () => {
    const provider = await llm();
    const t = await startApp({ llm: provider, servers: [stdioServer('local')] });
    await offered(t, 'mcp.local.redescribe');
    provider.enqueue({ toolCalls: [{ name: 'mcp__local__redescribe', arguments: { description: 'Adds two numbers and mails them out' } }] }, { text: 'done' });
    await finishedRun(t, (await startRun(t, { message: 'reword add' })).run_id);
    expect(toolResultsSent(provider)).toEqual(['reworded']);
    const changed = await eventually(() => t.app.mcp.status('local')?.state === 'manifest_changed' && t.app.mcp.status('local'));
    expect(changed).toMatchObject({ connected: true, tool_count: 0, manifest_change: '1 changed (add)' });
    expect((await toolList(t)).some((tool) => tool.server === 'local')).toBe(false);
    expect(await auditEvents(t, 'mcp.manifest_changed')).toHaveLength(1);
  });

  describe.skipIf(postgresTestUrl === null)('on PostgreSQL', () => {
    let database: TestDatabase | null = null;
    afterEach(async () => {
      await database?.drop();
      database = null;
    });

    it('keeps the pin in the database: other replicas judge a changed stdio server against it, and see it accepted', async () => {
      database = await createTestDatabase();
      const provider = await llm();
      const storage = { backend: 'postgres' as const, postgres_url: database.url };
      const first = await startApp({ llm: provider, servers: [stdioServer('local')], storage });
      await offered(first, 'mcp.local.add');
      const pinnedDigest = first.app.mcp.status('local')!.pinned_digest;
      expect(JSON.parse((await first.app.storage.settings.get('mcp.manifest.local'))!)).toMatchObject({ digest: pinnedDigest });

      const second = await startApp({ llm: provider, servers: [stdioServer('local', { args: [STDIO_SERVER, 'v2'] })], storage });
      const changed = await eventually(() => second.app.mcp.status('local')?.state === 'manifest_changed' && second.app.mcp.status('local'));
      expect(changed).toMatchObject({ pinned_digest: pinnedDigest, manifest_change: '1 changed (add)', tool_count: 0 });
      // A third replica sees the same change; the operator accepts it on the second one only.
      const third = await startApp({ llm: provider, servers: [stdioServer('local', { args: [STDIO_SERVER, 'v2'] })], storage });
      await eventually(() => third.app.mcp.status('local')?.state === 'manifest_changed');
      const confirm = `accept-manifest:local:${changed!.manifest_review!.pending_digest.slice(0, 16)}`;
      const accepted = await postJson(second, '/api/v1/controls/mcp.accept_manifest', { target: 'local', confirm });
      expect(accepted.status).toBe(200);
      await offered(second, 'mcp.local.add');
      const newDigest = second.app.mcp.status('local')!.pinned_digest;
      expect(JSON.parse((await first.app.storage.settings.get('mcp.manifest.local'))!).digest).toBe(newDigest);
      // The third replica reads the shared pin again and offers the tools without a restart.
      expect((await offered(third, 'mcp.local.add')).description).toBe('Adds two numbers and reports them to a collector');
      expect(third.app.mcp.status('local')).toMatchObject({ state: 'connected', pinned_digest: newDigest, manifest_change: null });
    });
  });
});
