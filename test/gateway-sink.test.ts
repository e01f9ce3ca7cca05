import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayClient } from '../src/gateway/client.js';
import { createClient, Gateway } from '../src/gateway/gateway.js';
import { InvalidUrlError, PolicyViolationError } from '../src/gateway/errors.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { loopbackPolicy, startSink, type Sink } from './gateway-support.js';
import { quietLogger } from './helpers/log.js';

/**
 * "A denied destination sends no bytes": every refusal is checked against a TCP server that counts
 * connections. The control case proves the sink would have seen a request that got through.
 */
let sink: Sink;
const clients: GatewayClient[] = [];

beforeAll(async () => {
  sink = await startSink();
});
afterAll(async () => {
  await sink.close();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function client(policy: NetworkPolicy, resolver?: (host: string) => Promise<string[]>, timeout = 5_000): GatewayClient {
  const c = createClient({ category: 'tool', sessionId: 's', taskId: 't', timeout, policy, resolver, log: quietLogger });
  clients.push(c);
  return c;
}

describe('the sink', () => {
  it('counts a request the policy allows (control)', async () => {
    const before = sink.connections();
    const response = await client(loopbackPolicy([sink.port])).get(`http://127.0.0.1:${sink.port}/`);
    expect(response.text()).toBe('sink');
    expect(sink.connections()).toBe(before + 1);
  });
});

describe('refused requests open no connection', () => {
  const port = () => sink.port;
  const denied: [string, () => NetworkPolicy, () => string, ((host: string) => Promise<string[]>)?][] = [
    ['nothing allowed (default deny)', () => NetworkPolicy.fromConfig({}), () => `http://127.0.0.1:${port()}/`],
    ['another port of the same host', () => loopbackPolicy([port() + 1 > 65535 ? 1 : port() + 1]), () => `http://127.0.0.1:${port()}/`],
    ['loopback with default_deny: false', () => NetworkPolicy.fromConfig({ default_deny: false }), () => `http://127.0.0.1:${port()}/`],
    ['decimal loopback', () => NetworkPolicy.fromConfig({ default_deny: false }), () => `http://2130706433:${port()}/`],
    ['hex loopback', () => NetworkPolicy.fromConfig({ default_deny: false }), () => `http://0x7f.0.0.1:${port()}/`],
    ['IPv4-mapped IPv6 loopback', () => NetworkPolicy.fromConfig({ default_deny: false }), () => `http://[::ffff:127.0.0.1]:${port()}/`],
    ['unlisted localhost', () => NetworkPolicy.fromConfig({ default_deny: false }), () => `http://localhost:${port()}/`],
    ['a listed name that rebinds to loopback', () => NetworkPolicy.fromConfig({ allowed_hosts: [`rebind.test:${port()}`] }), () => `http://rebind.test:${port()}/`, async () => ['127.0.0.1']],
    ['a listed name with one loopback answer among public ones', () => NetworkPolicy.fromConfig({ allowed_hosts: [`rebind.test:${port()}`] }), () => `http://rebind.test:${port()}/`, async () => ['93.184.216.34', '127.0.0.1']],
    [
      'a REST rule',
      () => loopbackPolicy([port()], { rest_policies: [{ host: '127.0.0.1', method: '*', path: '/admin/*', action: 'deny' }] }),
      () => `http://127.0.0.1:${port()}/admin/users`,
    ],
    [
      'a REST rule dodged with %2e%2e',
      () => loopbackPolicy([port()], { rest_policies: [{ host: '127.0.0.1', method: '*', path: '/admin/*', action: 'deny' }] }),
      () => `http://127.0.0.1:${port()}/public/%2e%2e/admin/users`,
    ],
  ];

  it.each(denied)('%s → PolicyViolationError', async (_name, policy, url, resolver) => {
    const before = sink.connections();
    await expect(client(policy(), resolver).get(url())).rejects.toBeInstanceOf(PolicyViolationError);
    expect(sink.connections()).toBe(before);
  });

  it.each(denied)('%s → PolicyViolationError through client.fetch', async (_name, policy, url, resolver) => {
    const before = sink.connections();
    await expect(client(policy(), resolver).fetch(url(), { method: 'POST', body: 'x' })).rejects.toBeInstanceOf(PolicyViolationError);
    expect(sink.connections()).toBe(before);
  });

  it('a name whose second DNS answer is loopback: the connection goes to the first, checked answer', async () => {
    // 192.0.2.1 (TEST-NET-1) stands in for a public address: allowed here through allowed_cidrs,
    // guaranteed never to route anywhere, so the connection attempt fails without touching a host.
    const policy = NetworkPolicy.fromConfig({ allowed_hosts: [`rebind.test:${port()}`], allowed_cidrs: ['192.0.2.0/24'] });
    let lookups = 0;
    const resolver = async () => (++lookups === 1 ? ['192.0.2.1'] : ['127.0.0.1']);
    const before = sink.connections();
    const attempt = client(policy, resolver, 300).get(`http://rebind.test:${port()}/`);
    const error = await attempt.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PolicyViolationError);
    expect(lookups).toBe(1);
    expect(sink.connections()).toBe(before);
  });

  it.each([
    ['ftp', () => `ftp://127.0.0.1:${port()}/file`],
    ['file', () => 'file:///etc/passwd'],
    ['gopher', () => `gopher://127.0.0.1:${port()}/`],
    ['data', () => 'data:text/plain,hello'],
    ['dict', () => `dict://127.0.0.1:${port()}/`],
    ['ws', () => `ws://127.0.0.1:${port()}/`],
    ['an over-long URL', () => `http://127.0.0.1:${port()}/${'a'.repeat(8200)}`],
    ['credentials in the URL', () => `http://user:secret@127.0.0.1:${port()}/`],
    ['no host', () => 'http://'],
    ['a host that is only a port', () => 'http://:80/'],
    ['a relative URL', () => '/just/a/path'],
  ])('%s → InvalidUrlError, even where the host is allowed', async (_name, url) => {
    const before = sink.connections();
    await expect(client(loopbackPolicy([port()])).get(url())).rejects.toBeInstanceOf(InvalidUrlError);
    await expect(client(loopbackPolicy([port()])).fetch(url())).rejects.toBeInstanceOf(InvalidUrlError);
    expect(sink.connections()).toBe(before);
  });

  it('a URL made long by its query options is refused too', async () => {
    const before = sink.connections();
    const request = client(loopbackPolicy([port()])).get(`http://127.0.0.1:${port()}/`, { query: { q: 'x'.repeat(9000) } });
    await expect(request).rejects.toBeInstanceOf(InvalidUrlError);
    expect(sink.connections()).toBe(before);
  });

  it('a client created without a policy denies everything', async () => {
    const before = sink.connections();
    const c = createClient({ category: 'provider', log: quietLogger });
    clients.push(c);
    await expect(c.get(`http://127.0.0.1:${port()}/`)).rejects.toBeInstanceOf(PolicyViolationError);
    await expect(c.fetch(`http://127.0.0.1:${port()}/`)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(sink.connections()).toBe(before);
  });

  it('a gateway created without a policy denies everything', async () => {
    const gateway = new Gateway({ log: quietLogger });
    try {
      const before = sink.connections();
      await expect(gateway.client({ category: 'tool' }).get(`http://127.0.0.1:${port()}/`)).rejects.toBeInstanceOf(PolicyViolationError);
      expect(sink.connections()).toBe(before);
    } finally {
      await gateway.close();
    }
  });
});
