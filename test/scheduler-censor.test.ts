import { describe, expect, it } from 'vitest';
import type { SqliteStorage } from '../src/storage/sqlite/index.js';
import { eventually, json, postJson } from './helpers/agent.js';
import { sqliteOf, type TestApp } from './helpers/app.js';
import { storedEvents } from './helpers/audit.js';
import { perTest } from './helpers/per-test.js';
import { TestClock } from './helpers/scheduler.js';

const { app } = perTest();

const KEY = 'sk-proj-Abcdefghij0123456789KLMNOPqrst';
const PASSWORD = 'hunter2';
const SECRETS = [KEY, PASSWORD, 'Abcdefghij0123456789'];

const data = async (t: TestApp, path: string) => (await json(await t.request(path))).data;
const leaks = (value: unknown) => SECRETS.filter((secret) => JSON.stringify(value).includes(secret));
const jobLabels = async (t: TestApp, id: string) => (await data(t, '/api/v1/controls')).controls
  .filter((control: any) => control.id.startsWith('scheduler.'))
  .map((control: any) => control.targets.find((target: any) => target.target === id)?.label);

describe('a job\'s name, description and task are censored like a chat message', () => {
  it('stores them censored, so the answer, list, detail, control labels, audit event and runs never show the secret', async () => {
    const clock = new TestClock(Date.parse('2026-01-05T12:00:00.000Z'));
    const t = await app({ now: clock.now });
    const created = await postJson(t, '/api/v1/scheduler/jobs', {
      name: `deploy with ${KEY}`,
      description: `password=${PASSWORD} for the staging box`,
      task: `log in with password=${PASSWORD} and call the API with ${KEY}, then report`,
      schedule: 'every 1 minutes',
    });
    expect(created.status).toBe(201);
    const job = (await json(created)).data;
    expect(job).toMatchObject({
      name: 'deploy with [REDACTED]',
      description: 'password=[REDACTED] for the staging box',
      task: 'log in with password=[REDACTED] and call the API with [REDACTED], then report',
    });

    const [listed] = (await data(t, '/api/v1/scheduler/jobs')).jobs;
    expect(listed).toMatchObject({ name: job.name, description: job.description, task_preview: job.task, task_chars: job.task.length });
    expect(await data(t, `/api/v1/scheduler/jobs/${job.id}`)).toEqual(job);
    expect(await jobLabels(t, job.id)).toEqual(Array(3).fill('deploy with [REDACTED] (every 1 minutes)'));
    const [event] = storedEvents(t.app.storage as SqliteStorage, 'scheduler.job.create');
    expect(event!.detail).toMatchObject({ job_id: job.id, job_name: 'deploy with [REDACTED]' });

    // Stored censored (as chat turns are): the database file has no copy, and a fire asks the censored task.
    const row = sqliteOf(t.app).prepare('SELECT name, description, task FROM jobs WHERE id = ?').get(job.id);
    expect(row).toEqual({ name: job.name, description: job.description, task: job.task });
    clock.advance(60_000);
    await t.app.scheduler.runner.tick();
    const run = await eventually(async () => {
      const [found] = (await data(t, `/api/v1/runs?session_id=${encodeURIComponent(`job:${job.id}`)}`)).runs;
      return found?.status === 'complete' ? found : undefined;
    });
    expect(run.message).toBe(job.task);

    const everything = [job, listed, await data(t, '/api/v1/controls'), storedEvents(t.app.storage as SqliteStorage), run];
    expect(leaks(everything)).toEqual([]);
  });

  it('censors a job stored before its text was censored wherever it is shown, also a key the preview would cut', async () => {
    const t = await app();
    const job = await t.app.scheduler.create({ name: 'placeholder', schedule: 'daily at 09:00', task: 'placeholder' });
    // A key that starts just before the preview's end: cut at 200 it would no longer look like a key.
    const task = `${'a'.repeat(190)} ${KEY} and password=${PASSWORD}`;
    sqliteOf(t.app).prepare('UPDATE jobs SET name = ?, description = ?, task = ? WHERE id = ?')
      .run(`old ${KEY}`, `password=${PASSWORD}`, task, job.id);

    const [listed] = (await data(t, '/api/v1/scheduler/jobs')).jobs;
    expect(listed).toMatchObject({ name: 'old [REDACTED]', description: 'password=[REDACTED]', task_chars: task.length });
    // Censored first, then cut: 191 characters, then the first 9 of "[REDACTED]".
    expect(listed.task_preview).toBe(`${'a'.repeat(190)} [REDACTED… (${task.length} characters in all)`);
    expect(listed.task_preview).not.toContain('sk-');
    expect((await data(t, `/api/v1/scheduler/jobs/${job.id}`)).task).toBe(`${'a'.repeat(190)} [REDACTED] and password=[REDACTED]`);
    expect(await jobLabels(t, job.id)).toEqual(Array(3).fill('old [REDACTED] (daily at 09:00)'));
    const diagnostics = await data(t, '/api/v1/diagnostics');
    expect(leaks([listed, await data(t, `/api/v1/scheduler/jobs/${job.id}`), await data(t, '/api/v1/controls'), diagnostics])).toEqual([]);
  });
});
