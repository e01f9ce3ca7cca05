import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Database } from '../src/storage/sqlite/index.js';
import { SECRET, serve, writeCrashConfig } from './crash/cycle.js';

const home = mkdtempSync(join(tmpdir(), 'agentd-webhook-term-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function post(url: string, prompt: string, sender: string, client: string): Promise<Response | null> {
  const body = JSON.stringify({ prompt, sender });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  return fetch(url, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-forwarded-for': client },
  }).catch(() => null);
}

it('SIGTERM during a webhook burst: every 202 is run, now or at the next start; later requests get 503 or no connection', async () => {
  writeCrashConfig(home);
  const first = await serve(home);
  const prompts = Array.from({ length: 90 }, (_, i) => `what is ${i}+1? burst-${randomUUID().slice(0, 8)}`);
  let answered = 0;
  const responses = await Promise.all(prompts.map((prompt, i) =>
    post(first.target.webhook, prompt, `sender${i % 3}`, `10.9.${i}.1`).then((response) => {
      // The signal arrives while the burst is still being answered.
      if (++answered === 30) first.child.kill('SIGTERM');
      return response;
    })));
  expect(await first.exited).toBe(0);
  const accepted = prompts.filter((_, i) => responses[i]?.status === 202);
  const statuses = new Set(responses.map((r) => r?.status ?? 'no connection'));
  for (const status of statuses) expect([202, 503, 'no connection']).toContain(status);
  for (const response of responses.filter((r) => r?.status === 503)) {
    expect(await response!.json()).toMatchObject({ status: 'error', code: 'AGENTD_SHUTTING_DOWN' });
  }
  expect(accepted.length).toBeGreaterThan(0);

  // The rest runs at the next start.
  const second = await serve(home);
  const db = new Database(join(home, 'agentd.db'));
  // Run to the end, or (those running when the signal came) interrupted by the shutdown: once each.
  const ran = db.db.prepare(`SELECT count(*) FROM runs WHERE message = ?
    AND (status = 'complete' OR error = 'interrupted by shutdown')`).pluck();
  try {
    for (let i = 0; i < 400 && accepted.some((prompt) => ran.get(prompt) !== 1); i++) await new Promise((r) => setTimeout(r, 50));
    expect(accepted.filter((prompt) => ran.get(prompt) !== 1)).toEqual([]);
  } finally {
    db.close();
    second.child.kill('SIGTERM');
    await second.exited;
  }
  const left = /webhook: (\d+) accepted message\(s\) were not run before shutdown/.exec(first.output());
  const recovered = /webhook: (\d+) message\(s\) accepted before the last shutdown will run now/.exec(second.output());
  // What the first process said it left is what the second one picked up.
  expect(recovered?.[1]).toBe(left?.[1]);
}, 60_000);
