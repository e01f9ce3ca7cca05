import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkPolicy } from '../policy/network-policy.js';
import { createClient } from './gateway.js';
import { GatewayError } from './errors.js';
import { collectingLogger, quietLogger } from '../../test/helpers/log.js';

let server: Server;
let base: string;
let policy: NetworkPolicy;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-reply': 'yes' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  policy = NetworkPolicy.fromConfig({ allowed_hosts: [`127.0.0.1:${port}`] });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

describe('createClient', () => {
  it('sends each method with the options on the allowlist', async () => {
    const lines: string[] = [];
    const client = createClient({ category: 'tool', policy, log: collectingLogger(lines) });
    try {
      for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
        const response = await client[method](`${base}/${method}`, { query: { a: 1 }, headers: { 'x-h': 'v' } });
        expect(response.status).toBe(200);
        expect(response.ok).toBe(true);
        expect(response.json<Echo>()).toMatchObject({ method: method.toUpperCase(), url: `/${method}?a=1`, headers: { 'x-h': 'v' } });
      }
      const head = await client.head(`${base}/h`);
      expect(head.headers.get('x-reply')).toBe('yes');
      expect(head.bytes().byteLength).toBe(0);
      const posted = await client.post(`${base}/json`, { json: { n: 1 } });
      expect(posted.json<Echo>()).toMatchObject({ body: '{"n":1}', headers: { 'content-type': 'application/json' } });
      const custom = await client.request('options', `${base}/o`);
      expect(custom.json<Echo>().method).toBe('OPTIONS');
      expect(lines).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('drops options off the allowlist and says which, by name', async () => {
    const lines: string[] = [];
    const client = createClient({ category: 'tool', policy, log: collectingLogger(lines) });
    try {
      const options = { verify: false, rejectUnauthorized: false, headers: { Host: 'internal.example', 'X-Ok': '1' } };
      const response = await client.get(`${base}/x`, options as never);
      expect(response.json<Echo>().headers).toMatchObject({ host: base.slice('http://'.length), 'x-ok': '1' });
      expect(lines).toEqual([
        'gateway: dropped request option(s) not on the allowlist: verify, rejectUnauthorized',
        'gateway: dropped request header(s) the gateway sets itself: host',
      ]);
    } finally {
      await client.close();
    }
  });

  it('refuses CONNECT and malformed methods before any I/O', async () => {
    const client = createClient({ category: 'tool', policy, log: quietLogger });
    try {
      await expect(client.request('CONNECT', `${base}/`)).rejects.toThrow(TypeError);
      await expect(client.request('GET X', `${base}/`)).rejects.toThrow(TypeError);
      await expect(client.fetch(`${base}/`, { method: 'TRACE' })).rejects.toThrow(TypeError);
    } finally {
      await client.close();
    }
  });

  it('refuses requests once closed, also through Symbol.asyncDispose', async () => {
    const client = createClient({ category: 'tool', policy, log: quietLogger });
    await client[Symbol.asyncDispose]();
    await expect(client.get(`${base}/`)).rejects.toBeInstanceOf(GatewayError);
    await client.close();
  });

  it('refuses a nonsensical configuration', () => {
    expect(() => createClient({ category: 'tool', policy, timeout: 0 })).toThrow(TypeError);
    expect(() => createClient({ category: 'tool', policy, maxResponseBytes: -1 })).toThrow(TypeError);
  });
});
