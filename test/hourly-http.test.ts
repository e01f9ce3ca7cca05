import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedRun, json, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';

/**
 * What the console's overview and charts read: runs and spend per hour, the cost summary paged,
 * any session's turns, and the webhook queue depth in /status. Over real HTTP on a real SQLite file.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ config: { webhook: { enabled: true, port: 0, secret: 'hook-secret-value' } } });
});

afterAll(async () => {
  await t?.close();
});

const get = async (path: string) => {
  const response = await t.request(path);
  return { status: response.status, body: await json(response) };
};

describe('GET /api/v1/runs/hourly', () => {
  it('counts the last 24 hours\' runs per UTC hour and status by default', async () => {
    const run = await startRun(t, { message: 'what is 2+3' });
    await finishedRun(t, run.run_id);
    const { status, body } = await get('/api/v1/runs/hourly');
    expect(status).toBe(200);
    const since = Date.parse(body.data.since);
    expect(Math.abs(Date.now() - 24 * 3_600_000 - since)).toBeLessThan(60_000);
    const hour = `${run.created_at.slice(0, 13)}:00:00.000Z`;
    expect(body.data.hours).toContainEqual({ hour, status: 'complete', runs: 1 });
  });

  it('refuses a start it cannot read, or further back than 31 days, naming since', async () => {
    for (const since of ['yesterday', new Date(Date.now() - 32 * 24 * 3_600_000).toISOString()]) {
      const { status, body } = await get(`/api/v1/runs/hourly?since=${encodeURIComponent(since)}`);
      expect(status).toBe(400);
      expect(body).toMatchObject({ status: 'error', code: 'AGENTD_VALIDATION', error: expect.stringContaining('"since"') });
    }
    const later = await get(`/api/v1/runs/hourly?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    expect(later.body.data.hours).toEqual([]);
  });
});

describe('GET /api/v1/costs/hourly and the paged summary', () => {
  it('sums spend per hour, provider and model, and pages the sessions by offset', async () => {
    const now = new Date();
    for (const [session, cost] of [['ses_x', 0.5], ['ses_y', 0.25], ['ses_z', 0.125]] as const) {
      await t.app.agent.costs.record({ session_id: session, run_id: null, provider: 'openai', model: 'gpt-4.1-mini', prompt_tokens: 1, completion_tokens: 1, cost_usd: cost, timestamp: now.toISOString() });
    }
    const { body } = await get(`/api/v1/costs/hourly?since=${encodeURIComponent(new Date(now.getTime() - 3_600_000).toISOString())}`);
    // The offline provider's calls of the other tests are recorded too, at $0.
    expect(body.data.hours.filter((h: { provider: string }) => h.provider === 'openai')).toEqual([{ hour: `${now.toISOString().slice(0, 13)}:00:00.000Z`, provider: 'openai', model: 'gpt-4.1-mini', calls: 3, cost_usd: 0.875 }]);
    const second = await get('/api/v1/costs/summary?limit=2&offset=1');
    expect(second.body.data.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(['ses_y', 'ses_z']);
    expect((await get('/api/v1/costs/summary?limit=1')).body.data.sessions[0].session_id).toBe('ses_x');
    expect((await get('/api/v1/costs/summary?offset=-1')).status).toBe(400);
  });
});

describe('GET /api/v1/memory/history', () => {
  it('answers the turns of any session id, an unknown one empty, and needs session_id', async () => {
    const chat = await json(await t.request('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'note the otter' }) }));
    const sessionId = chat.data.session_id as string;
    await t.request(`/api/v1/sessions/${sessionId}`, { method: 'DELETE' });
    const { body } = await get(`/api/v1/memory/history?session_id=${sessionId}`);
    expect(body.data.turns.map((turn: { role: string; content: string }) => turn.role)).toEqual(['user', 'assistant']);
    expect(body.data.turns[0].content).toBe('note the otter');
    expect((await get('/api/v1/memory/history?session_id=job%3Anone')).body.data.turns).toEqual([]);
    const missing = await get('/api/v1/memory/history');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('session_id');
  });
});

describe('GET /api/v1/status', () => {
  it('reports how many accepted webhook messages wait for their run', async () => {
    const { body } = await get('/api/v1/status');
    expect(body.data.webhook_queue_depth).toBe(0);
    const off = await startTestApp();
    try {
      expect((await json(await off.request('/api/v1/status'))).data.webhook_queue_depth).toBeNull();
    } finally {
      await off.close();
    }
  });
});
