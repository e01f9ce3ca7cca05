import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../src/listener/headers.js';
import { eventually, heldTool, json, postJson, rawGet, readEvents, startAppWithFakeOpenAI, startRun } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';
import { startFakeOpenAI } from './fakes/openai-server.js';

/**
 * GET /metrics on the real app: every family moves when its event happens (real requests, runs,
 * event streams, webhook posts, gateway refusals, priced provider calls against a fake OpenAI).
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function app(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const t = await startTestApp(options);
  cleanups.push(() => t.close());
  return t;
}

async function scrape(t: TestApp): Promise<string> {
  const response = await t.request('/metrics');
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one sample (`name{labels} value`), or 0 when the series has not appeared yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((label) => present.includes(label)) && present.length === wanted.length) return Number(match[3]);
  }
  return 0;
}

const SECRET = 'metrics-webhook-secret';
function webhookPost(port: number, payload: object, signed = true): Promise<Response> {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', signed ? SECRET : 'wrong').update(body).digest('hex')}`;
  return fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body });
}

/** A GET from another loopback address, so a test can exhaust that client's rate limit and still scrape. */
function getFrom(localAddress: string, url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers: { authorization: `Bearer ${key}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /metrics', () => {
  it('is authenticated like the API, carries the security headers and serves the Prometheus text format', async () => {
    const t = await app();
    const anonymous = await fetch(`${t.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ status: 'error', code: 'AGENTD_UNAUTHORIZED' });
    expect((await t.request('/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);

    const response = await t.request('/metrics', { headers: { 'x-api-key': t.apiKey } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(response.headers.get(name), name).toBe(value);
    const text = await response.text();
    for (const family of [
      'agentd_http_requests_total counter', 'agentd_http_request_duration_seconds histogram', 'agentd_runs_finished_total counter',
      'agentd_runs_in_flight gauge', 'agentd_sse_viewers gauge', 'agentd_webhook_queue_depth gauge', 'agentd_webhook_rejections_total counter',
      'agentd_gateway_requests_total counter', 'agentd_gateway_denials_total counter', 'agentd_provider_tokens_total counter',
      'agentd_provider_cost_usd_total counter', 'agentd_rate_limited_total counter', 'agentd_database_size_bytes gauge',
      'agentd_discord_messages_total counter', 'agentd_discord_replies_total counter',
    ]) expect(text).toContain(`# TYPE ${family}`);
  });

  it('counts requests by route pattern, method and status with their latency, apart for each app in the process', async () => {
    const t = await app();
    const other = await app();
    for (let i = 0; i < 3; i++) expect((await t.request(`/api/v1/sessions/ses_missing${i}`)).status).toBe(404);
    expect((await t.request('/api/v1/health')).status).toBe(200);
    expect((await t.request('/no/such/path')).status).toBe(404);

    const text = await scrape(t);
    const missing = { route: '/api/v1/sessions/:id', method: 'GET', status: '404' };
    expect(sample(text, 'agentd_http_requests_total', missing)).toBe(3);
    expect(sample(text, 'agentd_http_request_duration_seconds_count', missing)).toBe(3);
    expect(sample(text, 'agentd_http_request_duration_seconds_bucket', { ...missing, le: '+Inf' })).toBe(3);
    expect(sample(text, 'agentd_http_request_duration_seconds_sum', missing)).toBeGreaterThan(0);
    expect(sample(text, 'agentd_http_requests_total', { route: '/api/v1/health', method: 'GET', status: '200' })).toBe(1);
    expect(sample(text, 'agentd_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    // The raw URL never becomes a label: the ids and the unknown path stay out.
    expect(text).not.toContain('ses_missing');
    expect(text).not.toContain('/no/such/path');

    // The other app's registry saw none of it; the scrape itself is counted once answered.
    const otherText = await scrape(other);
    expect(sample(otherText, 'agentd_http_requests_total', missing)).toBe(0);
    expect(sample(await scrape(t), 'agentd_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBe(1);
  });

  it('counts API requests refused by the rate limit', async () => {
    const t = await app({ config: { api: { rate_limit_rpm: 2 } } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await getFrom('127.0.0.2', `${t.url}/api/v1/health`, t.apiKey));
    expect(statuses).toEqual([200, 200, 429, 429]);
    const text = await scrape(t);
    expect(sample(text, 'agentd_rate_limited_total', { limiter: 'api' })).toBe(2);
    expect(sample(text, 'agentd_http_requests_total', { route: '/api/v1/health', method: 'GET', status: '429' })).toBe(2);
  });

  it('follows a run: in flight with a viewer, then finished by status, and the priced provider calls it made', async () => {
    const server = await startFakeOpenAI();
    cleanups.push(() => server.close());
    // $1 per prompt token and $2 per completion token: easy sums.
    const price = { input_per_mtok: 1_000_000, output_per_mtok: 2_000_000 };
    const t = await app({
      env: { OPENAI_API_KEY: 'sk-test-openai-key-000000000000' },
      config: {
        providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: server.baseUrl, price } },
        network: { allowed_hosts: [server.host] },
      },
    });
    const hold = heldTool('hold');
    t.app.tools.register(hold.tool);
    server.enqueue({ toolCalls: [{ name: 'hold', arguments: {} }], usage: { input: 7, output: 3 } }, { text: 'done', usage: { input: 11, output: 5 } });

    const run = await startRun(t, { message: 'go' });
    const viewer = await rawGet(t.url, `/api/v1/runs/${run.run_id}/events`, { authorization: `Bearer ${t.apiKey}` });
    cleanups.push(async () => viewer.destroy());
    await hold.started;
    await viewer.waitFor((body) => body.includes('event: tool.request'));
    const during = await scrape(t);
    expect(sample(during, 'agentd_runs_in_flight')).toBe(1);
    expect(sample(during, 'agentd_sse_viewers')).toBe(1);
    expect(sample(during, 'agentd_runs_finished_total', { status: 'complete' })).toBe(0);

    hold.release();
    await viewer.ended();
    const after = await eventually(async () => {
      const text = await scrape(t);
      return sample(text, 'agentd_sse_viewers') === 0 && sample(text, 'agentd_runs_in_flight') === 0 ? text : undefined;
    });
    expect(sample(after, 'agentd_runs_finished_total', { status: 'complete' })).toBe(1);
    expect(sample(after, 'agentd_provider_tokens_total', { provider: 'openai', kind: 'prompt' })).toBe(18);
    expect(sample(after, 'agentd_provider_tokens_total', { provider: 'openai', kind: 'completion' })).toBe(8);
    // 18 prompt tokens at $1, 8 completion tokens at $2.
    expect(sample(after, 'agentd_provider_cost_usd_total', { provider: 'openai' })).toBe(34);
    // Both provider calls went through the gateway, allowed.
    expect(sample(after, 'agentd_gateway_requests_total', { category: 'provider' })).toBe(2);
    expect(sample(after, 'agentd_gateway_denials_total', { category: 'provider' })).toBe(0);

    const second = heldTool('hold_again');
    t.app.tools.register(second.tool);
    server.enqueue({ toolCalls: [{ name: 'hold_again', arguments: {} }] });
    const cancelled = await startRun(t, { message: 'go again' });
    await second.started;
    expect((await postJson(t, `/api/v1/runs/${cancelled.run_id}/cancel`, {})).status).toBe(202);
    second.release();
    expect(sample(await scrape(t), 'agentd_runs_finished_total', { status: 'cancelled' })).toBe(1);
  });

  it('counts gateway requests and denials of a tool the network policy refuses', async () => {
    const t = await app();
    const run = await startRun(t, { message: 'fetch https://example.com/page please' });
    const { events } = await readEvents(t, run.run_id);
    expect(events.some((e) => e.event === 'tool.result' && e.data.includes('is_error":true'))).toBe(true);
    const text = await scrape(t);
    expect(sample(text, 'agentd_gateway_requests_total', { category: 'tool' })).toBe(1);
    expect(sample(text, 'agentd_gateway_denials_total', { category: 'tool' })).toBe(1);
  });

  it('counts webhook rejections by reason, webhook rate limiting and the queue of messages waiting for their run', async () => {
    const { t, server, close } = await startAppWithFakeOpenAI({ config: { webhook: { enabled: true, port: 0, secret: SECRET, rate_limit_rpm: 4 } } });
    cleanups.push(close);
    const hold = heldTool('hold');
    t.app.tools.register(hold.tool);
    server.enqueue({ toolCalls: [{ name: 'hold', arguments: {} }] }, { text: 'first done' }, { text: 'second done' }, { text: 'third done' });
    const port = t.app.webhook!.channel.port;

    // The sender's first message holds its run; the second waits in the queue behind it.
    expect((await webhookPost(port, { prompt: 'one', sender: 'bot' })).status).toBe(202);
    await hold.started;
    expect((await webhookPost(port, { prompt: 'two', sender: 'bot' })).status).toBe(202);
    expect(sample(await scrape(t), 'agentd_webhook_queue_depth')).toBe(1);

    expect((await webhookPost(port, { prompt: 'forged', sender: 'bot' }, false)).status).toBe(401);
    // The fourth request of the minute is the last one the limit lets through.
    expect((await webhookPost(port, { prompt: 'three', sender: 'bot' })).status).toBe(202);
    expect((await webhookPost(port, { prompt: 'limited', sender: 'bot' })).status).toBe(429);
    const text = await scrape(t);
    expect(sample(text, 'agentd_webhook_rejections_total', { reason: 'AGENTD_UNAUTHORIZED' })).toBe(1);
    expect(sample(text, 'agentd_webhook_rejections_total', { reason: 'AGENTD_RATE_LIMITED' })).toBe(1);
    expect(sample(text, 'agentd_rate_limited_total', { limiter: 'webhook' })).toBe(1);

    hold.release();
    await eventually(async () => sample(await scrape(t), 'agentd_webhook_queue_depth') === 0);
  });

  it('reports the size of the database, which grows as turns are stored', async () => {
    const t = await app();
    const db = sqliteOf(t.app);
    const pages = () => (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    const before = sample(await scrape(t), 'agentd_database_size_bytes');
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) {
      const chat = await postJson(t, '/api/v1/chat', { message: `remember ${i} ${'x'.repeat(8_000)}` });
      expect(chat.status).toBe(200);
      await json(chat);
    }
    // Audit events may still be landing: the gauge is read between two readings of the file's pages.
    const low = pages();
    const after = sample(await scrape(t), 'agentd_database_size_bytes');
    const high = pages();
    expect(after).toBeGreaterThan(before);
    expect(after).toBeGreaterThanOrEqual(low);
    expect(after).toBeLessThanOrEqual(high);
  });
});
