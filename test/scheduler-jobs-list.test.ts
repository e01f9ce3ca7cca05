import { describe, expect, it } from 'vitest';
import { TASK_PREVIEW_CHARS } from '../src/scheduler/index.js';
import { json } from './helpers/agent.js';
import type { TestApp } from './helpers/app.js';
import { perTest } from './helpers/per-test.js';

const { app } = perTest();

const get = async (t: TestApp, path: string) => {
  const response = await t.request(path);
  return { status: response.status, body: await json(response) };
};
const page = async (t: TestApp, query = '') => (await get(t, `/api/v1/scheduler/jobs${query}`)).body.data;

describe('GET /api/v1/scheduler/jobs pages, and lists a bounded preview of each task', () => {
  it('pages 120 jobs by limit/offset (default 50), each task a preview; GET /scheduler/jobs/{id} has the whole task', async () => {
    const t = await app();
    // Tasks of every length around the bound; job 7's is the largest a job may have.
    const taskOf = (i: number) => (i === 7 ? 'z'.repeat(32_000) : `task ${i} ${'x'.repeat(i * 3)}`);
    for (let i = 0; i < 120; i++) await t.app.scheduler.create({ name: `job ${i}`, schedule: 'daily at 09:00', task: taskOf(i) });

    const first = await page(t);
    expect(first.jobs).toHaveLength(50);
    expect(first).toMatchObject({ total: 120, has_more: true });
    expect(first.jobs.map((job: any) => job.name)).toEqual(Array.from({ length: 50 }, (_, i) => `job ${i}`));
    for (const job of first.jobs) expect(job).not.toHaveProperty('task');

    const seen: string[] = [];
    for (let offset = 0; ; offset += 50) {
      const p = await page(t, `?limit=50&offset=${offset}`);
      seen.push(...p.jobs.map((job: any) => job.name));
      expect(p.total).toBe(120);
      if (!p.has_more) break;
    }
    expect(seen).toEqual(Array.from({ length: 120 }, (_, i) => `job ${i}`));
    expect(await page(t, '?limit=7&offset=113')).toMatchObject({ total: 120, has_more: false, jobs: [{ name: 'job 113' }, {}, {}, {}, {}, {}, { name: 'job 119' }] });
    expect(await page(t, '?offset=500')).toEqual({ jobs: [], total: 120, has_more: false });
    // Over the maximum is clamped (like the other lists), not refused.
    expect((await page(t, '?limit=100000')).jobs).toHaveLength(120);

    // A task of at most TASK_PREVIEW_CHARS characters is shown whole; a longer one is cut, with its length.
    const all = (await page(t, '?limit=200')).jobs;
    for (const [i, job] of all.entries()) {
      const task = taskOf(i);
      expect(job.task_chars).toBe(task.length);
      expect(job.task_preview).toBe(task.length <= TASK_PREVIEW_CHARS ? task : `${task.slice(0, TASK_PREVIEW_CHARS)}… (${task.length} characters in all)`);
    }
    expect(all[7].task_preview).toBe(`${'z'.repeat(200)}… (32000 characters in all)`);
    // The whole answer stays small: 120 jobs with up to 32,000-character tasks.
    const raw = await (await t.request('/api/v1/scheduler/jobs?limit=200')).text();
    expect(raw.length).toBeLessThan(120 * 1_500);

    const detail = await get(t, `/api/v1/scheduler/jobs/${all[7].id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({ id: all[7].id, name: 'job 7', task: 'z'.repeat(32_000) });
  });

  it('refuses a bad limit or offset, and an unknown job id, with the error envelope', async () => {
    const t = await app();
    const job = await t.app.scheduler.create({ name: 'one', schedule: 'daily at 09:00', task: 'hello' });
    for (const [query, message] of [
      ['limit=abc', 'limit must be an integer'],
      ['limit=1.5', 'limit must be an integer'],
      ['offset=-1', 'offset must be a non-negative integer'],
      ['offset=ten', 'offset must be a non-negative integer'],
      ['offset=1e3', 'offset must be a non-negative integer'],
    ] as const) {
      const answer = await get(t, `/api/v1/scheduler/jobs?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toEqual({ status: 'error', code: 'AGENTD_VALIDATION', error: expect.stringContaining(message) });
    }
    const unknownParam = await get(t, '/api/v1/scheduler/jobs?page=2');
    expect(unknownParam.status).toBe(400);
    expect(unknownParam.body).toEqual({ status: 'error', code: 'AGENTD_VALIDATION', error: expect.any(String) });
    for (const id of ['job_nope', '__proto__', 'constructor', encodeURIComponent(`${job.id} `)]) {
      const answer = await get(t, `/api/v1/scheduler/jobs/${id}`);
      expect(answer.status, id).toBe(404);
      expect(answer.body, id).toEqual({ status: 'error', code: 'AGENTD_JOB_NOT_FOUND', error: expect.stringMatching(/^job ".*" not found$/) });
    }
  });
});
