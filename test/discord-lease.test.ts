import { afterEach, beforeEach, expect, it } from 'vitest';
import { DiscordConnection } from '../src/channels/discord/gateway/connection.js';
import { CONNECTION_SESSION, LeasedConnection } from '../src/channels/discord/gateway/lease.js';
import { Gateway } from '../src/gateway/index.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { SessionLeases } from '../src/runs/session-leases.js';
import { FakeDiscordGateway } from './fakes/discord-gateway.js';
import { tempAudit, type TempAudit } from './helpers/audit.js';
import { eventually } from './helpers/agent.js';
import { collectingLogger } from './helpers/log.js';

/** The claim on the Gateway connection, on the session claims of a real store. */

const TOKEN = 'lease-test-token';
let fake: FakeDiscordGateway;
let audit: TempAudit;
let gateway: Gateway;
let leases: SessionLeases;
let lines: string[];

beforeEach(async () => {
  fake = await FakeDiscordGateway.start({ token: TOKEN, heartbeatIntervalMs: 1_000 });
  audit = tempAudit();
  lines = [];
  gateway = new Gateway({ policy: NetworkPolicy.fromConfig({ discord_allowed_hosts: [`127.0.0.1:${fake.port}`] }), audit: audit.audit, log: collectingLogger(lines) });
  leases = new SessionLeases({ store: audit.storage.sessionClaims, log: collectingLogger(lines), leaseMs: 1_000, heartbeatMs: 200 });
  await leases.start();
});
afterEach(async () => {
  await leases.stop();
  await gateway.close();
  await fake.close();
  await audit.close();
});

function leased(holderId: string): LeasedConnection {
  const connection = new DiscordConnection({
    token: TOKEN, apiBaseUrl: fake.apiBaseUrl, network: gateway, audit: audit.audit, log: collectingLogger(lines),
    events: { ready: () => undefined, message: () => undefined },
  });
  return new LeasedConnection({ claims: leases, connection, holderId, log: collectingLogger(lines), checkEveryMs: 100 });
}

it('connects only while holding the claim, stands by while another holds it, and frees it on stop', async () => {
  const first = leased('holder-1');
  const second = leased('holder-2');
  first.start();
  await eventually(() => first.status().state === 'connected');
  second.start();
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(second.status().state).toBe('standby');
  expect(second.holds).toBe(false);
  expect(fake.identifies).toHaveLength(1);
  expect((await leases.holder(CONNECTION_SESSION))?.holder_id).toBe('holder-1');

  await first.stop();
  await eventually(() => second.status().state === 'connected');
  // A fresh session each time: the stopped holder's ended with its close.
  expect(fake.identifies).toHaveLength(2);
  expect(fake.resumes).toHaveLength(0);
  expect((await leases.holder(CONNECTION_SESSION))?.holder_id).toBe('holder-2');
  expect(fake.mostConnected).toBe(1);
  await second.stop();
  expect(await leases.holder(CONNECTION_SESSION)).toBeNull();
});

it('closes the connection when its claim was taken by another holder', async () => {
  const holder = leased('holder-1');
  holder.start();
  await eventually(() => holder.status().state === 'connected');
  // The claim lapsed (as when renewals fail) and another holder took it.
  await audit.storage.sessionClaims.release(CONNECTION_SESSION, 'holder-1');
  const now = new Date().toISOString();
  expect(await audit.storage.sessionClaims.acquire({ session_id: CONNECTION_SESSION, holder_id: 'elsewhere', kind: 'chat', expires_at: new Date(Date.now() + 60_000).toISOString() }, now)).toBe(true);
  await eventually(() => holder.status().state === 'standby' && fake.connected === 0);
  expect(lines.some((l) => l.includes('lost the claim on the Gateway connection'))).toBe(true);
  await holder.stop();
  expect((await leases.holder(CONNECTION_SESSION))?.holder_id).toBe('elsewhere');
});
