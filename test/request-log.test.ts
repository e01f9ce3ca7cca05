import { afterEach, describe, expect, it } from 'vitest';
import { eventually, finishedRun } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';
import { createLogger } from '../src/log.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A generated id: an RFC 9562 UUID (version 8, variant 10). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The one request line logged for `id`. */
function requestLines(app: TestApp, id: string): string[] {
  return app.log.lines.filter((l) => / info request /.test(l) && l.includes(`request_id=${id}`));
}

function auditDetails(app: TestApp, eventType: string): Record<string, unknown>[] {
  const rows = sqliteOf(app.app).prepare('SELECT detail FROM audit_events WHERE event_type = ? ORDER BY seq').all(eventType) as { detail: string }[];
  return rows.map((r) => JSON.parse(r.detail) as Record<string, unknown>);
}

describe('request ids', () => {
  it('generates one when absent, echoes a safe offered one and replaces an unsafe one', async () => {
    t = await startTestApp();
    const generated = (await t.request('/api/v1/health')).headers.get('x-request-id');
    expect(generated).toMatch(UUID);
    const other = (await t.request('/api/v1/health')).headers.get('x-request-id');
    expect(other).toMatch(UUID);
    expect(other).not.toBe(generated);

    const offered = await t.request('/api/v1/health', { headers: { 'x-request-id': 'lb-7f3a.42:retry_1' } });
    expect(offered.headers.get('x-request-id')).toBe('lb-7f3a.42:retry_1');

    for (const unsafe of ['x'.repeat(129), 'has space', 'quote"s', '<script>', '']) {
      const res = await t.request('/api/v1/health', { headers: { 'x-request-id': unsafe } });
      expect(res.headers.get('x-request-id'), JSON.stringify(unsafe)).toMatch(UUID);
    }
  });

  it('is echoed on refusals and errors: 401, 404, 405, a bad URL and 500', async () => {
    t = await startTestApp({
      beforeListen: (app) => {
        app.http.get('/api/v1/test-boom', async () => {
          throw new Error('boom in the handler');
        });
      },
    });
    const ask = async (path: string, init: RequestInit = {}, withKey = true) => {
      const headers = new Headers(init.headers);
      headers.set('x-request-id', `probe-${path.length}-${init.method ?? 'GET'}`);
      const res = withKey ? await t!.request(path, { ...init, headers }) : await fetch(`${t!.url}${path}`, { ...init, headers });
      return { status: res.status, id: res.headers.get('x-request-id'), sent: headers.get('x-request-id') };
    };
    for (const probe of [
      await ask('/api/v1/health', {}, false),
      await ask('/api/v1/nothing-here'),
      await ask('/api/v1/health', { method: 'DELETE' }),
      await ask('/api/v1/x%zz'),
      await ask('/api/v1/test-boom'),
    ]) {
      expect([401, 404, 405, 400, 500]).toContain(probe.status);
      expect(probe.id).toBe(probe.sent);
    }
    // The 500's log line (the only place the cause is written) names the request.
    const boom = `probe-${'/api/v1/test-boom'.length}-GET`;
    expect(t.log.lines.some((l) => l.includes('boom in the handler') && l.includes(`request_id=${boom}`))).toBe(true);
  });
});

describe('request log', () => {
  it('writes one line per request with method, route, status, duration and id, and never a credential', async () => {
    t = await startTestApp();
    const res = await t.request('/api/v1/sessions/sess_missing?limit=5', {
      headers: { 'x-request-id': 'line-check-1', cookie: 'service_operator_session=cookie-secret-value' },
    });
    expect(res.status).toBe(404);
    const lines = await eventually(() => {
      const found = requestLines(t!, 'line-check-1');
      return found.length > 0 && found;
    });
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info request /);
    expect(line).toContain('method=GET');
    expect(line).toContain('route=/api/v1/sessions/:id');
    expect(line).toContain('status=404');
    expect(line).toMatch(/duration_ms=\d+(\.\d)?( |$)/);
    const all = t.log.lines.join('\n');
    expect(all).not.toContain(t.apiKey);
    expect(all).not.toContain('cookie-secret-value');
    expect(all).not.toContain('limit=5');
  });

  it('logs refused requests too (401 without a key)', async () => {
    t = await startTestApp();
    const res = await fetch(`${t.url}/api/v1/health`, { headers: { 'x-request-id': 'no-key-1' } });
    expect(res.status).toBe(401);
    const [line] = await eventually(() => {
      const found = requestLines(t!, 'no-key-1');
      return found.length > 0 && found;
    });
    expect(line).toContain('status=401');
  });
});

describe('request ids in audit events', () => {
  it('puts the request id in the detail of events recorded while handling it, refusals included', async () => {
    t = await startTestApp();
    const wrong = await fetch(`${t.url}/api/v1/health`, { headers: { authorization: 'Bearer wrong-key', 'x-request-id': 'guess-1' } });
    expect(wrong.status).toBe(401);
    const refused = await eventually(() => auditDetails(t!, 'web.auth').find((d) => d.request_id === 'guess-1'));
    expect(refused.reason).toBe('invalid API key');

    const chat = await t.request('/api/v1/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'chat-1' },
      body: JSON.stringify({ message: 'what is 6*7?' }),
    });
    expect(chat.status).toBe(200);
    const toolCalls = auditDetails(t, 'agent.tool_call');
    expect(toolCalls.length).toBeGreaterThan(0);
    expect(toolCalls.every((d) => d.request_id === 'chat-1')).toBe(true);
  });

  it('names the request that started a background run on the run\'s events, the gateway\'s included', async () => {
    t = await startTestApp();
    const started = await t.request('/api/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'run-1' },
      // The offline provider calls web_fetch; the default policy refuses the host.
      body: JSON.stringify({ message: 'fetch http://127.0.0.1:9/status' }),
    });
    expect(started.status).toBe(202);
    const runId = ((await started.json()) as { data: { run_id: string } }).data.run_id;
    // Read by other requests: the run keeps the id of the one that started it.
    expect((await finishedRun(t, runId)).status).toBe('complete');
    const completed = await eventually(() => auditDetails(t!, 'agent.run.complete').find((d) => d.run_id === runId));
    expect(completed.request_id).toBe('run-1');
    const toolCalls = auditDetails(t, 'agent.tool_call');
    expect(toolCalls.map((d) => [d.tool, d.request_id])).toEqual([['web_fetch', 'run-1']]);
    const denied = auditDetails(t, 'network_denied');
    expect(denied.map((d) => [d.category, d.request_id])).toEqual([['tool', 'run-1']]);
  });

  it('adds nothing to events recorded outside a request', async () => {
    t = await startTestApp();
    const event = await t.app.audit.emit({ event_type: 'test.outside', category: 'test', result: 'allow', detail: { n: 1 } });
    expect(event.detail).toEqual({ n: 1 });
  });
});

describe('request lines as JSON', () => {
  it('are the exact shape pino writes for log.info(fields, "request"), one per answered request', async () => {
    const written: string[] = [];
    const log = createLogger({ destination: { write: (line: string) => void written.push(line) } });
    t = await startTestApp({ log });
    await t.request('/api/v1/health', { headers: { 'x-request-id': 'json-line-1' } });
    await t.request('/api/v1/no-such-route', { headers: { 'x-request-id': 'json-line-2' } });
    log.pino!.info({ request_id: 'r', method: 'GET', route: null, status: 200, duration_ms: 1.5 }, 'request');
    const [health, missing, reference] = ['json-line-1', 'json-line-2', '"r"'].map((id) => {
      const line = written.find((l) => l.includes(id.startsWith('"') ? `"request_id":${id}` : `"${id}"`));
      expect(line, id).toBeDefined();
      expect(line!.endsWith('\n')).toBe(true);
      return JSON.parse(line!) as Record<string, unknown>;
    });
    expect(Object.keys(health!)).toEqual(Object.keys(reference!));
    expect(health).toMatchObject({ level: 'info', request_id: 'json-line-1', method: 'GET', route: '/api/v1/health', status: 200, msg: 'request' });
    expect(missing).toMatchObject({ request_id: 'json-line-2', route: null, status: 404 });
    expect(typeof health!.time).toBe('number');
    expect(Math.abs((health!.time as number) - Date.now())).toBeLessThan(60_000);
    expect(typeof health!.duration_ms).toBe('number');
  });
});
