import { afterEach, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { json, postJson, readEvents, startAppWithFakeOpenAI } from './helpers/agent.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function appWithFake(): Promise<{ t: TestApp; server: FakeLlmServer }> {
  const started = await startAppWithFakeOpenAI();
  // Closing twice is harmless (the app's close is idempotent), so a test may close it itself.
  cleanups.push(started.close);
  return started;
}

describe('run and chat edges', () => {
  it('a run cancelled before the agent begins still opens its log with run.start', async () => {
    const { t } = await appWithFake();
    const run = await t.app.agent.startRun({ message: 'hello' });
    await t.app.agent.cancelRun(run.run_id);
    const { events } = await readEvents(t, run.run_id);
    expect(events.map((e) => `${e.id}:${e.event}`)).toEqual(['1:run.start', '2:run.cancelled']);
  });

  it('streams a terminal event larger than the per-viewer byte bound', async () => {
    const { t, server } = await appWithFake();
    const long = `start ${'x'.repeat(1_300_000)} end`;
    server.enqueue({ text: long });
    const created = (await json(await postJson(t, '/api/v1/runs', { message: 'write a lot' }))).data as { run_id: string };
    const { events } = await readEvents(t, created.run_id);
    expect(events.map((e) => e.event)).toEqual(['run.start', 'run.complete']);
    expect((JSON.parse(events[1]!.data) as { response: string }).response).toBe(long);
  });

  it('answers a chat still in flight at shutdown with a 503 envelope instead of dropping it', async () => {
    const { t, server } = await appWithFake();
    server.enqueue({ text: 'too late', delayMs: 3000 });
    const pending = postJson(t, '/api/v1/chat', { message: 'slow question' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await t.close();
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(((await response.json()) as { status: string }).status).toBe('error');
  });

  it('authenticates and rate-limits requests with long ids like any other, then 404s them', async () => {
    const t = await startTestApp();
    cleanups.push(() => t.close());
    const longId = 'a'.repeat(150);
    expect((await fetch(`${t.url}/api/v1/runs/${longId}`)).status).toBe(401);
    const found = await t.request(`/api/v1/runs/${longId}`);
    expect(found.status).toBe(404);
    expect(await found.json()).toEqual({ status: 'error', error: expect.stringContaining('not found'), code: 'AGENTD_RUN_NOT_FOUND' });
  });
});
