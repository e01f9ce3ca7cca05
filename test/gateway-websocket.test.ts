import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Gateway, InvalidUrlError, PolicyViolationError, type GatewaySocket } from '../src/gateway/index.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import type { NetworkConfig } from '../src/config/schema.js';
import { FakeDiscordGateway } from './fakes/discord-gateway.js';
import { tempAudit, type TempAudit } from './helpers/audit.js';
import { quietLogger } from './helpers/log.js';

/** WebSockets the gateway opens: under the policy for their category, pinned, TLS verified, audited. */

let fake: FakeDiscordGateway;
let audit: TempAudit;
const gateways: Gateway[] = [];
const sockets: GatewaySocket[] = [];

function gateway(network: Partial<NetworkConfig>, resolver?: (host: string) => Promise<string[]>): Gateway {
  const made = new Gateway({ policy: NetworkPolicy.fromConfig(network), audit: audit.audit, log: quietLogger, resolver });
  gateways.push(made);
  return made;
}

async function open(on: Gateway, url: string, received: string[] = []): Promise<GatewaySocket> {
  const socket = await on.webSocket(url, { category: 'discord', onMessage: (text) => received.push(text), onClose: () => undefined });
  sockets.push(socket);
  return socket;
}

beforeEach(async () => {
  fake = await FakeDiscordGateway.start({ token: 't' });
  audit = tempAudit();
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close(1000);
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await fake.close();
  await audit.close();
});

describe('gateway WebSockets', () => {
  it('opens an allowed socket, hands over what the server says first, and audits the handshake', async () => {
    const received: string[] = [];
    await open(gateway({ discord_allowed_hosts: [`127.0.0.1:${fake.port}`] }), `${fake.wsUrl}/?v=10`, received);
    await expect.poll(() => received.length).toBe(1);
    expect(JSON.parse(received[0]!)).toMatchObject({ op: 10 });
    expect(fake.upgrades).toEqual([{ url: '/?v=10' }]);
    const [event] = audit.events('network_request');
    expect(event).toMatchObject({ result: 'allow', source: 'discord', detail: { method: 'GET', status_code: 101, category: 'discord' } });
  });

  it('refuses a host allowed for another category only, sending nothing', async () => {
    const attempt = open(gateway({ tool_allowed_hosts: [`127.0.0.1:${fake.port}`] }), fake.wsUrl);
    await expect(attempt).rejects.toBeInstanceOf(PolicyViolationError);
    expect(fake.upgrades).toHaveLength(0);
    expect(audit.events('network_denied')[0]?.detail).toMatchObject({ category: 'discord', stage: 'address' });
  });

  it('refuses a listed name that resolves to a loopback address, before connecting', async () => {
    const resolver = async () => ['127.0.0.1'];
    const attempt = open(gateway({ discord_allowed_hosts: [`gateway.discord.test:${fake.port}`] }, resolver), `ws://gateway.discord.test:${fake.port}/`);
    await expect(attempt).rejects.toMatchObject({ stage: 'address' });
    expect(fake.upgrades).toHaveLength(0);
  });

  it('accepts only ws: and wss: URLs', async () => {
    await expect(open(gateway({ discord_allowed_hosts: [`127.0.0.1:${fake.port}`] }), fake.origin)).rejects.toBeInstanceOf(InvalidUrlError);
    expect(audit.events('network_denied')[0]?.detail).toMatchObject({ stage: 'url' });
  });
});

describe('gateway WebSockets over TLS', () => {
  let dir: string;
  let server: Server;
  let handshakes = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-wss-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) });
    // A client that did not verify would complete the TLS handshake (and then send its upgrade).
    server.on('secureConnection', () => {
      handshakes++;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the certificate: the TLS handshake with a self-signed one never completes', async () => {
    const port = (server.address() as AddressInfo).port;
    await expect(open(gateway({ discord_allowed_hosts: [`127.0.0.1:${port}`] }), `wss://127.0.0.1:${port}/`)).rejects.toThrow(/closed before it opened/);
    expect(handshakes).toBe(0);
    expect(audit.events('network_error')[0]?.detail).toMatchObject({ category: 'discord' });
  });
});
