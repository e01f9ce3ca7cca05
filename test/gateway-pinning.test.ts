import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayClient } from '../src/gateway/client.js';
import { createClient } from '../src/gateway/gateway.js';
import { pinnedConnector } from '../src/gateway/connector.js';
import { GatewayError } from '../src/gateway/errors.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { startHttp, type HttpServer } from './gateway-support.js';
import { quietLogger } from './helpers/log.js';

/**
 * The connection goes to the address the policy checked, while the request keeps the name: the
 * Host header and TLS servername say `pinned.test`, a name no DNS server knows.
 */
const clients: GatewayClient[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(closers.splice(0).map((close) => close()));
});

function pinnedClient(port: number): { client: GatewayClient; lookups: string[] } {
  const lookups: string[] = [];
  const policy = NetworkPolicy.fromConfig({ allowed_hosts: [`pinned.test:${port}`], allowed_cidrs: ['127.0.0.1/32'] });
  const client = createClient({
    category: 'tool',
    timeout: 5_000,
    policy,
    resolver: async (host) => {
      lookups.push(host);
      return ['127.0.0.1'];
    },
    log: quietLogger,
  });
  clients.push(client);
  return { client, lookups };
}

async function echoServer(): Promise<HttpServer> {
  const server = await startHttp((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ host: req.headers.host, peer: req.socket.localAddress }));
  });
  closers.push(() => server.close());
  return server;
}

describe('pinned connections', () => {
  it('reach the checked address with the Host header naming the URL host', async () => {
    const server = await echoServer();
    const { client, lookups } = pinnedClient(server.port);
    const response = await client.get(`http://pinned.test:${server.port}/`);
    expect(response.json()).toEqual({ host: `pinned.test:${server.port}`, peer: '127.0.0.1' });
    expect(lookups).toEqual(['pinned.test']);
    // Every request is checked again (one lookup each), and kept-alive sockets are reused.
    for (let i = 0; i < 4; i++) await client.get(`http://pinned.test:${server.port}/`);
    expect(lookups).toHaveLength(5);
    expect(server.connections()).toBeLessThan(5);
  });

  it('present the URL host as the TLS servername while dialling the checked address', async () => {
    const seen: string[] = [];
    const tls: TlsServer = createTlsServer({
      SNICallback: (servername, callback) => {
        seen.push(servername);
        // No certificate for anyone: recording the name the client asked for is all this server does.
        callback(new Error('no certificate here'), undefined);
      },
    });
    tls.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => tls.close(() => resolve())));
    const port = (tls.address() as AddressInfo).port;
    const { client } = pinnedClient(port);
    await expect(client.get(`https://pinned.test:${port}/`)).rejects.toThrow();
    expect(seen).toEqual(['pinned.test']);
  });
});

describe('pinnedConnector', () => {
  function connect(addresses: string[], port: number, onConnected?: (address: string) => void): Promise<{ remote: string | undefined }> {
    const connector = pinnedConnector(addresses, 2_000, onConnected);
    return new Promise((resolve, reject) => {
      connector({ hostname: 'pinned.test', host: `pinned.test:${port}`, protocol: 'http:', port: String(port), localAddress: null }, (error, socket) => {
        if (error) return reject(error);
        const remote = socket!.remoteAddress;
        socket!.destroy();
        resolve({ remote });
      });
    });
  }

  it('refuses to connect to a destination nobody checked', async () => {
    await expect(connect([], 1)).rejects.toBeInstanceOf(GatewayError);
  });

  it('dials a pinned address and never the name', async () => {
    const server = await echoServer();
    await expect(connect(['127.0.0.1'], server.port)).resolves.toEqual({ remote: '127.0.0.1' });
  });

  it('moves to the next checked address when one refuses the connection', async () => {
    const server = await echoServer();
    const connected: string[] = [];
    // 127.0.0.2 is loopback too, but nothing listens there on this port: connection refused.
    await expect(connect(['127.0.0.2', '127.0.0.1'], server.port, (a) => connected.push(a))).resolves.toEqual({ remote: '127.0.0.1' });
    expect(server.connections()).toBe(1);
    expect(connected).toEqual(['127.0.0.1']);
  });
});
