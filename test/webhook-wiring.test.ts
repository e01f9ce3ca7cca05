import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const SECRET = 'webhook-test-secret';
const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

async function post(port: number, payload: object): Promise<Response> {
  const body = JSON.stringify(payload);
  return fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': sign(body) },
    body,
  });
}

async function waitFor<T>(probe: () => T | undefined | null | Promise<T | undefined | null>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('webhook channel inside agentd serve', () => {
  it('turns a signed POST into a stored run on the sender session, one run at a time per sender', async () => {
    t = await startTestApp({ config: { webhook: { enabled: true, port: 0, secret: SECRET } } });
    const port = t.app.webhook!.channel.port;
    expect(port).toBeGreaterThan(0);

    const first = await post(port, { prompt: 'what is 17*23?', sender: 'ci-bot' });
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ status: 'queued' });
    expect((await post(port, { prompt: 'what is 2+2?', sender: 'ci-bot' })).status).toBe(202);

    const runs = await waitFor(async () => {
      const list = await t!.app.agent.listRuns('webhook:ci-bot', 10);
      return list.length === 2 && list.every((r) => r.status === 'complete') ? list : null;
    }, 'two completed webhook runs');
    expect(runs.map((r) => r.response).join(' ')).toContain('391');
    expect(runs.every((r) => r.tools_used.includes('calculator'))).toBe(true);
    // One at a time: the second run started only after the first had finished.
    const [newer, older] = runs;
    expect(Date.parse(newer!.started_at!)).toBeGreaterThanOrEqual(Date.parse(older!.finished_at!));

    const history = await (await t.request('/api/v1/memory/search?q=391&session_id=webhook:ci-bot')).json() as { data: { results: unknown[] } };
    expect(history.data.results.length).toBeGreaterThan(0);
    const audited = sqliteOf(t.app).prepare("SELECT count(*) AS n FROM audit_events WHERE event_type = 'webhook.accept'").get() as { n: number };
    expect(audited.n).toBe(2);
    expect(t.log.lines.some((l) => l.includes('reply') && l.includes('characters'))).toBe(true);
  });

  it('refuses an unsigned request and reports the channel in diagnostics', async () => {
    t = await startTestApp({ config: { webhook: { enabled: true, port: 0, secret: SECRET } } });
    const port = t.app.webhook!.channel.port;
    const unsigned = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'hi' }),
    });
    expect(unsigned.status).toBe(401);
    const report = (await (await t.request('/api/v1/diagnostics')).json()) as {
      data: { sections: { key: string; checks: { name: string; status: string; summary: string }[] }[] };
    };
    const web = report.data.sections.find((s) => s.key === 'web')!;
    expect(web.checks.find((c) => c.name === 'webhook_bind')).toMatchObject({ status: 'ok', summary: expect.stringContaining(String(port)) });
    expect(web.checks.find((c) => c.name === 'webhook_secret')?.status).toBe('ok');
  });

  it('limits each client to webhook.rate_limit_rpm requests a minute', async () => {
    t = await startTestApp({ config: { webhook: { enabled: true, port: 0, secret: SECRET, rate_limit_rpm: 3 } } });
    const port = t.app.webhook!.channel.port;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(port, { prompt: `what is ${i}+1?`, sender: 'ci-bot' })).status);
    expect(statuses).toEqual([202, 202, 202, 429, 429]);
  });

  it('does not listen when the section is disabled', async () => {
    t = await startTestApp();
    expect(t.app.webhook).toBeNull();
    const report = await t.app.diagnostics();
    expect(report.sections.find((s) => s.key === 'web')!.checks.find((c) => c.name === 'webhook')?.summary).toBe('webhook channel not enabled');
  });
});
