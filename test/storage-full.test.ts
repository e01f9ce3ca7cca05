import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, json, postJson, readEvents, startRun } from './helpers/agent.js';
import { sqliteOf, startTestApp, type TestApp } from './helpers/app.js';
import { canMountTmpfs } from './helpers/mounts.js';
import { smallDisk, type SmallDisk } from './helpers/small-disk.js';
import { startFakeOpenAI } from './fakes/openai-server.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';

/**
 * The service on a disk that fills up while it runs: writes answer 507, a run it hits ends with
 * run.error, the diagnostics say so, and everything works again once space is freed, without a
 * restart. On CI the disk is a real 8 MB tmpfs (see helpers/small-disk.ts for the fallback).
 */
const realDisk = canMountTmpfs();
let disk: SmallDisk;
let llm: FakeLlmServer;
let t: TestApp;

beforeAll(async () => {
  disk = smallDisk();
  llm = await startFakeOpenAI();
  t = await startTestApp({
    home: disk.home,
    env: { OPENAI_API_KEY: 'sk-test-openai-key-000000000000' },
    config: {
      providers: { openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: llm.baseUrl } },
      network: { allowed_hosts: [llm.host] },
      webhook: { enabled: true, port: 0, secret: WEBHOOK_SECRET },
    },
  });
});

afterAll(async () => {
  await t?.close();
  await llm?.close();
  disk?.remove();
});

afterEach(() => disk.free(sqliteOf(t.app)));

const WEBHOOK_SECRET = 'full-disk-webhook-secret';

function postWebhook(prompt: string): Promise<Response> {
  const body = JSON.stringify({ prompt, sender: 'ci' });
  const signature = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`;
  return fetch(`http://127.0.0.1:${t.app.webhook!.channel.port}/`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body,
  });
}

/** Big enough to need new pages: under the page-limit fallback only such writes fail. */
const LONG = 'a long message that needs room on the disk. '.repeat(500);

async function storageCheck(): Promise<{ status: string; summary: string; remediation?: string }> {
  const report = (await json(await t.request('/api/v1/diagnostics'))).data;
  return report.sections.find((s: { key: string }) => s.key === 'memory').checks.find((c: { name: string }) => c.name === 'storage');
}

function expectStorageFull(body: { status: string; code: string; error: string }): void {
  expect(body).toMatchObject({ status: 'error', code: 'AGENTD_STORAGE_FULL', error: expect.stringMatching(/storage is full/i) });
  expect(body.error).not.toContain(disk.home);
}

describe('a full disk', () => {
  it('answers a webhook message it cannot store 507 instead of 202, and stores the retry once space is freed', async () => {
    const db = sqliteOf(t.app);
    disk.fill(db);
    const refused = await postWebhook(LONG);
    expect(refused.status).toBe(507);
    expectStorageFull(await refused.json() as { status: string; code: string; error: string });
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    expect(db.prepare('SELECT count(*) AS n FROM channel_inbox').get()).toEqual({ n: 0 });

    disk.free(db);
    expect((await postWebhook(LONG)).status).toBe(202);
    expect(db.prepare('SELECT count(*) AS n FROM channel_inbox').get()).toEqual({ n: 1 });
    // Its run writes in the background: let it end before the next test fills the disk again.
    await eventually(async () => (await t.app.agent.listRuns('webhook:ci', 1))[0]?.finished_at != null);
  });

  it('refuses a chat with 507, reports it in the diagnostics, and takes the chat once space is freed', async () => {
    const db = sqliteOf(t.app);
    disk.fill(db);
    if (disk.real) expect(await storageCheck()).toMatchObject({ status: 'warn', summary: expect.stringMatching(/^only 0\.0 MB free/) });
    else expect((await storageCheck()).status).not.toBe('error');

    const refused = await postJson(t, '/api/v1/chat', { message: LONG });
    expect(refused.status).toBe(507);
    expectStorageFull(await json(refused));
    const failing = await storageCheck();
    expect(failing).toMatchObject({ status: 'error', summary: expect.stringContaining('(the storage is full)'), remediation: expect.stringContaining('no restart needed') });
    expect(failing.summary).toMatch(/failed at \d{4}-\d\d-\d\dT[\d:.]+Z/);

    disk.free(db);
    const answered = await postJson(t, '/api/v1/chat', { message: LONG });
    expect(answered.status).toBe(200);
    const history = (await json(await t.request(`/api/v1/sessions/${(await json(answered)).data.session_id}/history`))).data.turns;
    expect(history.map((turn: { content: string }) => turn.content.length)).toEqual([LONG.length, expect.any(Number)]);
    expect((await storageCheck()).status).not.toBe('error');
  });

  // Under the page limit these writes fit in place and succeed: only a real full disk refuses them.
  it.runIf(realDisk)('refuses runs, pins and deletions with 507 as well', async () => {
    const chat = (await json(await postJson(t, '/api/v1/chat', { message: 'remember the blue door' }))).data;
    const [turn] = (await json(await t.request(`/api/v1/sessions/${chat.session_id}/history`))).data.turns;
    const db = sqliteOf(t.app);
    disk.fill(db);

    const refusals = [
      await postJson(t, '/api/v1/runs', { message: 'what is 2+2?' }),
      await postJson(t, `/api/v1/memory/turns/${turn.id}/pin`, {}),
      await t.request(`/api/v1/memory/turns/${turn.id}`, { method: 'DELETE' }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(507);
      expectStorageFull(await json(refused));
    }
    const pinned = db.prepare('SELECT pinned FROM turns WHERE id = ?').get(turn.id) as { pinned: number } | undefined;
    expect(pinned).toEqual({ pinned: 0 });

    disk.free(db);
    expect((await postJson(t, `/api/v1/memory/turns/${turn.id}/pin`, {})).status).toBe(200);
    expect((await t.request(`/api/v1/memory/turns/${turn.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await postJson(t, '/api/v1/runs', { message: 'what is 2+2?' })).status).toBe(202);
  });

  it('ends a run the full disk interrupts with run.error, stored once space is freed', async () => {
    const db = sqliteOf(t.app);
    llm.enqueue({ text: 'an answer that will not fit', delayMs: 1000 });
    const run = await startRun(t, { message: LONG, provider: 'openai' });
    const watching = readEvents(t, run.run_id);
    // The provider has the request: the disk fills while it thinks.
    await eventually(() => llm.requests.length === 1);
    disk.fill(db);

    // The run has ended (readers see it) though its end is not stored yet.
    const ended = await eventually(async () => {
      const record = (await json(await t.request(`/api/v1/runs/${run.run_id}`))).data;
      return record.status === 'error' && record;
    });
    expect(ended.error).toMatch(/^the storage is full: /);
    const stored = () => db.prepare('SELECT status, error FROM runs WHERE id = ?').get(run.run_id);
    // On a real full disk the end cannot be stored either (under the page limit it fits in place).
    if (disk.real) expect(stored()).toMatchObject({ status: 'running' });

    disk.free(db);
    await eventually(() => (stored() as { status: string }).status === 'error');
    expect(stored()).toEqual({ status: 'error', error: ended.error });
    // The viewer that watched all along gets the terminal event once it is stored, then the end.
    const { events } = await watching;
    expect(events.at(-1)).toMatchObject({ event: 'run.error' });
    expect(JSON.parse(events.at(-1)!.data).error).toBe(ended.error);
    expect(t.log.lines.some((line) => line.includes(`could not store the end of run ${run.run_id} (the storage is full)`))).toBe(disk.real);
  });
});
