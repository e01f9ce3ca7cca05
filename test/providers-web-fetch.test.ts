import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/gateway/index.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { createToolRegistry, ToolRegistry } from '../src/tools/index.js';
import { createWebFetchTool } from '../src/tools/web-fetch.js';
import { quietLogger } from './helpers/log.js';

/** web_fetch through the real gateway (category `tool`) against a local server with one page per case. */
const pages: Record<string, (res: ServerResponse) => void> = {
  '/plain': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('hello from the page');
  },
  '/html': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><head><style>p{}</style><script>alert(1)</script></head><body><h1>Title</h1><p>Tom &amp; Jerry&#33;</p></body></html>');
  },
  '/json': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  },
  '/latin1': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
    res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  },
  '/image': (res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
  },
  '/untyped-binary': (res) => {
    res.writeHead(200);
    res.end(Buffer.from([1, 2, 0, 4]));
  },
  '/big': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('x'.repeat(5000));
  },
  '/long': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('y'.repeat(300));
  },
  '/moved': (res) => {
    res.writeHead(302, { location: '/plain' });
    res.end();
  },
  '/drip': (res) => {
    // 30 bytes, one every 100 ms: 3 s in all, each gap far shorter than the tool's deadline below.
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '30' });
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed || ++sent > 30) return clearInterval(timer);
      res.write('z');
      if (sent === 30) res.end();
    }, 100);
    res.on('close', () => clearInterval(timer));
  },
  '/missing': (res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('nope');
  },
};

let server: ReturnType<typeof createServer>;
let origin = '';
let hits: string[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push(req.url ?? '');
    (pages[req.url ?? ''] ?? pages['/missing']!)(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function tools(allowed: boolean, limits: { maxResponseBytes?: number; maxOutputChars?: number; timeoutMs?: number } = {}): ToolRegistry {
  const policy = NetworkPolicy.fromConfig({ tool_allowed_hosts: allowed ? [new URL(origin).host] : [] });
  const factory = (o: Parameters<typeof createClient>[0]) => createClient({ ...o, policy, log: quietLogger });
  const registry = new ToolRegistry();
  registry.register(createWebFetchTool({ clientFactory: factory, ...limits }));
  return registry;
}

const context = () => ({ sessionId: 's1', runId: 'r1', signal: AbortSignal.timeout(20_000) });
const fetchPage = (registry: ToolRegistry, path: string) => registry.execute('web_fetch', { url: `${origin}${path}` }, context());

describe('web_fetch', () => {
  it('returns text pages with their status and type', async () => {
    const result = await fetchPage(tools(true), '/plain');
    expect(result.isError).toBe(false);
    expect(result.output).toContain('status: 200');
    expect(result.output).toContain('content_type: text/plain');
    expect(result.output).toMatch(/\n\nhello from the page$/);
    expect((await fetchPage(tools(true), '/json')).output).toContain('{"ok":true}');
    expect((await fetchPage(tools(true), '/latin1')).output).toMatch(/café$/);
  });

  it('reduces HTML to its readable text', async () => {
    const { output, isError } = await fetchPage(tools(true), '/html');
    expect(isError).toBe(false);
    expect(output).toContain('Title');
    expect(output).toContain('Tom & Jerry!');
    expect(output).not.toContain('alert');
    expect(output).not.toContain('<h1>');
  });

  it('refuses non-text content', async () => {
    expect(await fetchPage(tools(true), '/image')).toMatchObject({ isError: true, output: expect.stringMatching(/non-text content \(image\/png\)/) });
    expect(await fetchPage(tools(true), '/untyped-binary')).toMatchObject({ isError: true, output: expect.stringMatching(/binary content/) });
  });

  it('enforces the size cap and cuts long text', async () => {
    expect(await fetchPage(tools(true, { maxResponseBytes: 1000 }), '/big')).toMatchObject({ isError: true, output: expect.stringMatching(/larger than the 1000-byte limit/) });
    const long = await fetchPage(tools(true, { maxOutputChars: 100 }), '/long');
    expect(long.isError).toBe(false);
    expect(long.output).toContain(`${'y'.repeat(100)}\n[truncated: 200 more characters]`);
  });

  it('gives up on a trickling page at its deadline and says it timed out', async () => {
    const started = Date.now();
    const result = await fetchPage(tools(true, { timeoutMs: 400 }), '/drip');
    expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/^fetching .*\/drip was cancelled or timed out$/) });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('reports redirects and HTTP errors instead of following or hiding them', async () => {
    hits = [];
    expect(await fetchPage(tools(true), '/moved')).toMatchObject({ isError: true, output: expect.stringContaining(`redirected (HTTP 302) to ${origin}/plain`) });
    expect(hits).toEqual(['/moved']);
    expect(await fetchPage(tools(true), '/missing')).toMatchObject({ isError: true, output: expect.stringMatching(/HTTP 404/) });
  });

  it('is blocked by network policy without reaching the server', async () => {
    hits = [];
    const result = await fetchPage(tools(false), '/plain');
    expect(result.isError).toBe(true);
    // A loopback literal nothing names: the address rules refuse it (before the host rules).
    expect(result.output).toMatch(/^blocked by network policy: loopback address 127\.0\.0\.1 is not allowed\. .*tool_allowed_hosts/);
    expect(hits).toEqual([]);
  });

  it('is not granted by a provider-only allowance', async () => {
    hits = [];
    const policy = NetworkPolicy.fromConfig({ provider_allowed_hosts: [new URL(origin).host] });
    const registry = createToolRegistry({ gatewayClientFactory: (o) => createClient({ ...o, policy, log: quietLogger }) });
    expect((await fetchPage(registry, '/plain')).output).toMatch(/blocked by network policy/);
    expect(hits).toEqual([]);
  });

  it('refuses URLs that are not http(s)', async () => {
    const registry = tools(true);
    expect(await registry.execute('web_fetch', { url: 'file:///etc/passwd' }, context())).toMatchObject({ isError: true, output: expect.stringMatching(/unsupported URL scheme 'file:'/) });
    expect(await registry.execute('web_fetch', { url: 'not a url' }, context())).toMatchObject({ isError: true, output: expect.stringMatching(/invalid URL/) });
    expect(await registry.execute('web_fetch', {}, context())).toMatchObject({ isError: true, output: expect.stringMatching(/missing required argument 'url'/) });
  });
});
