import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayClient } from '../src/gateway/client.js';
import { createClient, Gateway, type StandaloneClientOptions } from '../src/gateway/gateway.js';
import { InvalidUrlError, PolicyViolationError, RequestTimeoutError, ResponseTooLargeError } from '../src/gateway/errors.js';
import { InteractiveApproval } from '../src/policy/approval.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';
import { loopbackPolicy, startHttp, tempAudit, type HttpServer, type TempAudit } from './gateway-support.js';
import { quietLogger } from './helpers/log.js';
import { storedEvents } from './helpers/audit.js';
import { AuditLog } from '../src/audit/log.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import type { AuditEvent, AuditInput, AuditSink } from '../src/storage/ports/audit.js';

/** The audit trail of the gateway, read back from a real audit log on a real SQLite file. */
let server: HttpServer;
let log: TempAudit;
const clients: GatewayClient[] = [];

beforeAll(async () => {
  server = await startHttp((req, res) => {
    if (req.url?.startsWith('/big')) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(5000));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  log = tempAudit();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  log.close();
});

function client(options: Partial<StandaloneClientOptions> = {}): GatewayClient {
  const c = createClient({
    category: 'tool',
    sessionId: 'session-1',
    taskId: 'task-9',
    policy: loopbackPolicy([server.port]),
    audit: log.audit,
    log: quietLogger,
    ...options,
  });
  clients.push(c);
  return c;
}

describe('gateway audit events', () => {
  it('a completed request is one network_request event with the URL query redacted', async () => {
    await client().get(`${server.url}/search?key=sk-live-123&q=weather`, { query: { token: 'abc' } });
    const events = log.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event_type: 'network_request',
      category: 'network',
      result: 'allow',
      severity: 'info',
      subsystem: 'gateway',
      source: 'tool',
      action: 'GET',
      session_id: 'session-1',
      task_id: 'task-9',
      detail: { method: 'GET', url: `${server.url}/search?key=[REDACTED]&q=[REDACTED]&token=[REDACTED]`, status_code: 200, category: 'tool' },
    });
    expect(JSON.stringify(events)).not.toContain('sk-live-123');
    expect(JSON.stringify(events)).not.toContain('weather');
  });

  it('client.fetch is audited the same way', async () => {
    const response = await client({ category: 'provider' }).fetch(`${server.url}/v1/chat?api-version=2024`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(log.events()).toMatchObject([
      { event_type: 'network_request', result: 'allow', source: 'provider', detail: { method: 'POST', url: `${server.url}/v1/chat?api-version=[REDACTED]`, status_code: 200, category: 'provider' } },
    ]);
  });

  it('a host the policy refuses is a network_denied event with host, category, rule and reason', async () => {
    // A name (not a loopback literal, which the address rules would refuse first): the host rules decide.
    await expect(client({ policy: NetworkPolicy.fromConfig({}) }).get(`http://refused.test:${server.port}/x?secret=1`)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(log.events()).toMatchObject([
      {
        event_type: 'network_denied',
        category: 'network',
        result: 'deny',
        severity: 'warning',
        subsystem: 'gateway',
        session_id: 'session-1',
        task_id: 'task-9',
        detail: {
          method: 'GET',
          url: `http://refused.test:${server.port}/x?secret=[REDACTED]`,
          host: 'refused.test',
          category: 'tool',
          stage: 'host',
          rule: null,
          reason: expect.stringContaining('not allowed for category tool'),
        },
      },
    ]);
  });

  it('a REST rule refusal names the rule', async () => {
    const policy = loopbackPolicy([server.port], { rest_policies: [{ host: '127.0.0.1', method: 'DELETE', path: '/repos/**', action: 'deny' }] });
    await expect(client({ policy }).delete(`${server.url}/repos/a/b`)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(log.events()[0]).toMatchObject({
      event_type: 'network_denied',
      detail: { method: 'DELETE', host: '127.0.0.1', stage: 'rest', rule: 'network.rest_policies[0]', reason: expect.stringContaining('/repos/a/b') },
    });
  });

  it('an address refusal explains what the name resolved to', async () => {
    const policy = NetworkPolicy.fromConfig({ allowed_hosts: ['intranet.example'] });
    await expect(client({ policy, resolver: async () => ['10.1.2.3'] }).get('http://intranet.example/')).rejects.toBeInstanceOf(PolicyViolationError);
    expect(log.events()[0]).toMatchObject({
      detail: { host: 'intranet.example', stage: 'address', reason: 'intranet.example resolves to private address 10.1.2.3, which is not allowed' },
    });
  });

  it('an invalid URL is audited without its query', async () => {
    await expect(client().get('ftp://files.example/a?password=hunter2')).rejects.toBeInstanceOf(InvalidUrlError);
    const [event] = log.events();
    expect(event).toMatchObject({ event_type: 'network_denied', detail: { stage: 'url', host: 'files.example', reason: expect.stringContaining('ftp') } });
    expect(JSON.stringify(event)).not.toContain('hunter2');
  });

  it('an oversize response is audited as a size refusal', async () => {
    await expect(client({ maxResponseBytes: 1000 }).get(`${server.url}/big`)).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(log.events()).toMatchObject([{ event_type: 'network_denied', result: 'deny', detail: { stage: 'size', rule: 'maxResponseBytes', host: '127.0.0.1' } }]);
  });

  it('a transport failure is a network_error event', async () => {
    const closed = await startHttp(() => undefined);
    const port = closed.port;
    await closed.close();
    await expect(client({ policy: loopbackPolicy([port]) }).get(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    expect(log.events()).toMatchObject([{ event_type: 'network_error', result: 'error', detail: { method: 'GET', code: 'ECONNREFUSED' } }]);
  });

  it('a failed or slow DNS lookup is a network_error event, and nothing is sent', async () => {
    const policy = NetworkPolicy.fromConfig({ allowed_hosts: ['nowhere.example'] });
    const missing = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' });
    await expect(client({ policy, resolver: async () => Promise.reject(missing) }).get('http://nowhere.example/')).rejects.toBe(missing);
    const slow = () => new Promise<string[]>(() => undefined);
    await expect(client({ policy, resolver: slow, timeout: 50 }).get('http://nowhere.example/')).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(log.events().map((e) => [e.event_type, e.detail.code ?? e.detail.error])).toEqual([
      ['network_error', 'ENOTFOUND'],
      ['network_error', 'RequestTimeoutError'],
    ]);
  });

  it('keeps the hash chain intact', async () => {
    await client().get(`${server.url}/a`);
    await client({ policy: NetworkPolicy.fromConfig({}) }).get(`${server.url}/b`).catch(() => undefined);
    expect(await log.audit.verify()).toMatchObject({ ok: true });
  });
});

describe('gateway audit events and a graceful stop (docs/gateway.md#audit-events)', () => {
  it('the event of a request answered right before the stop is on disk after it', async () => {
    const gateway = new Gateway({ policy: loopbackPolicy([server.port]), audit: log.audit, log: quietLogger });
    const response = await gateway.client({ category: 'tool', sessionId: 'session-1', taskId: 'task-9' }).get(`${server.url}/last`);
    expect(response.status).toBe(200);
    // The app's stop order: the gateway, then the database.
    await gateway.close();
    await log.storage.close();
    const reopened = new SqliteStorage(join(log.dir, 'agentd.db'));
    try {
      expect(storedEvents(reopened)).toMatchObject([
        { event_type: 'network_request', result: 'allow', task_id: 'task-9', detail: { url: `${server.url}/last`, status_code: 200 } },
      ]);
      expect(await new AuditLog(reopened.audit).verify()).toMatchObject({ ok: true, count: 1 });
    } finally {
      await reopened.close();
    }
  });

  it('answers without waiting for the event to be stored, and close() waits until it is', async () => {
    const stored: AuditInput[] = [];
    let store = (): void => undefined;
    // A sink whose write finishes only when the test says so.
    const slowSink: AuditSink = {
      emit: (input) => new Promise<AuditEvent>((resolve) => {
        store = () => {
          stored.push(input);
          resolve({ ...input, id: 'evt_1', timestamp: new Date().toISOString() } as AuditEvent);
        };
      }),
    };
    const gateway = new Gateway({ policy: loopbackPolicy([server.port]), audit: slowSink, log: quietLogger });
    const response = await gateway.client({ category: 'tool', sessionId: null, taskId: null }).get(`${server.url}/pending`);
    expect(response.status).toBe(200);
    expect(stored).toEqual([]);
    let closed = false;
    const closing = gateway.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    store();
    await closing;
    expect(stored).toMatchObject([{ event_type: 'network_request', detail: { url: `${server.url}/pending` } }]);
  });
});

describe('interactive approval through the gateway', () => {
  function scriptedApproval(answers: string[], isTTY = true) {
    const input = new PassThrough();
    const output = new PassThrough();
    let transcript = '';
    let asked = 0;
    output.on('data', (chunk: Buffer) => {
      transcript += chunk.toString();
      if (transcript.split('[N]o: ').length - 1 > asked) {
        const answer = answers[asked++];
        if (answer !== undefined) setImmediate(() => input.write(answer));
      }
    });
    return { approval: new InteractiveApproval({ input, output, isTTY, audit: log.audit, timeoutMs: 2_000 }), asked: () => asked, transcript: () => transcript };
  }
  const askingPolicy = (extra = {}) => NetworkPolicy.fromConfig({ interactive_approval: true, ...extra });
  // A name nobody listed, resolving to the test server: the host check refuses it, and once an
  // operator approves, the address check passes because allowed_cidrs covers the server.
  const unlisted = () => `http://approve.test:${server.port}`;
  const toServer = async () => ['127.0.0.1'];
  const reachable = () => askingPolicy({ allowed_cidrs: ['127.0.0.1/32'] });

  it('y lets one refused request through, audited as approved', async () => {
    const t = scriptedApproval(['y\n']);
    const response = await client({ policy: reachable(), resolver: toServer, approval: t.approval }).get(`${unlisted()}/ok`);
    expect(response.status).toBe(200);
    expect(log.events().map((e) => [e.event_type, e.result])).toEqual([
      ['approval_answer', 'allow'],
      ['network_request', 'allow'],
    ]);
    expect(log.events()[1]!.detail).toMatchObject({ approved_by: 'operator' });
    expect(t.transcript()).toContain(`tool http://approve.test:${server.port}`);
  });

  it('a remembers the host for the session; n and non-terminals deny', async () => {
    const t = scriptedApproval(['a\n', 'n\n']);
    const session1 = client({ policy: reachable(), resolver: toServer, approval: t.approval, sessionId: 'one' });
    expect((await session1.get(`${unlisted()}/1`)).status).toBe(200);
    expect((await session1.get(`${unlisted()}/2`)).status).toBe(200);
    expect(t.asked()).toBe(1);
    const session2 = client({ policy: reachable(), resolver: toServer, approval: t.approval, sessionId: 'two' });
    await expect(session2.get(`${unlisted()}/3`)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(t.asked()).toBe(2);
    const headless = scriptedApproval(['y\n'], false);
    await expect(client({ policy: reachable(), resolver: toServer, approval: headless.approval }).get(`${unlisted()}/4`)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(headless.asked()).toBe(0);
    expect(log.events().filter((e) => e.event_type === 'approval_answer').map((e) => e.detail.answer)).toEqual(['always', 'deny']);
  });

  it('a REST rule refusal can be approved too', async () => {
    const t = scriptedApproval(['y\n']);
    const policy = askingPolicy({ allowed_hosts: [`127.0.0.1:${server.port}`], rest_policies: [{ host: '127.0.0.1', method: 'POST', path: '/**', action: 'deny' }] });
    expect((await client({ policy, approval: t.approval }).post(`${server.url}/write`, { json: {} })).status).toBe(200);
    expect(t.transcript()).toContain(`POST http://127.0.0.1:${server.port}/write (overrides network.rest_policies[0])`);
  });

  it('is not consulted when the policy does not enable it', async () => {
    const t = scriptedApproval(['y\n']);
    const policy = NetworkPolicy.fromConfig({ allowed_cidrs: ['127.0.0.1/32'] });
    await expect(client({ policy, resolver: toServer, approval: t.approval }).get(`${unlisted()}/x`)).rejects.toBeInstanceOf(PolicyViolationError);
    expect(t.asked()).toBe(0);
  });

  it('never offers to open a refused address', async () => {
    const t = scriptedApproval(['y\n', 'y\n']);
    // Loopback is not covered by anything: the address rules refuse it before anyone is asked
    // (an approval of the host could not have let it through).
    await expect(client({ policy: askingPolicy(), approval: t.approval }).get(`${server.url}/x`)).rejects.toMatchObject({ stage: 'address' });
    expect(t.asked()).toBe(0);
  });
});
