import { describe, expect, it } from 'vitest';
import type { SqliteStorage } from '../src/storage/sqlite/index.js';
import { json, postJson } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { perTest } from './helpers/per-test.js';
import { storedEvents } from './helpers/audit.js';

const OPENAI = { OPENAI_API_KEY: 'sk-test-openai-key-000000000000' };

const { app, home } = perTest();

const refusal = async (response: Response) => ({ status: response.status, body: await response.json() });
const envelope = (code: string, error: unknown = expect.any(String)) => ({ status: 'error', error, code });
const control = (t: TestApp, id: string, body: unknown) => postJson(t, `/api/v1/controls/${id}`, body);
const controlAudit = (t: TestApp) => storedEvents(t.app.storage as SqliteStorage, 'web.control');
const jobs = async (t: TestApp): Promise<any[]> => (await json(await t.request('/api/v1/scheduler/jobs'))).data.jobs;
const defaultProvider = async (t: TestApp): Promise<string> => (await json(await t.request('/api/v1/status'))).data.default_provider;

async function createJob(t: TestApp, name = 'tick'): Promise<any> {
  return (await json(await postJson(t, '/api/v1/scheduler/jobs', { name, schedule: 'every 1 minutes', task: 'what time is it?' }))).data;
}

describe('GET /api/v1/controls', () => {
  it('lists the controls with their templates, targets, states and confirm strings', async () => {
    const t = await app({ env: OPENAI });
    const active = await createJob(t, 'active one');
    const paused = await createJob(t, 'paused one');
    await t.app.scheduler.pause(paused.id);
    const { controls } = (await json(await t.request('/api/v1/controls'))).data;
    expect(controls.map((c: any) => [c.id, c.confirm_template, c.destructive])).toEqual([
      ['provider.set_default', 'set-default:<provider>', false],
      ['scheduler.pause_job', 'pause-job:<job id>', false],
      ['scheduler.resume_job', 'resume-job:<job id>', false],
      ['scheduler.remove_job', 'remove-job:<job id>', true],
      ['mcp.accept_manifest', 'accept-manifest:<server>:<first 16 hex of the pending digest>', false],
    ]);
    expect(controls[4].targets).toEqual([]);
    expect(controls[0].targets).toEqual([
      { target: 'offline', label: 'offline (offline)', state: 'default', available: false, confirm: 'set-default:offline' },
      { target: 'anthropic', label: expect.stringMatching(/^anthropic \(/), state: 'unavailable', available: false, confirm: 'set-default:anthropic' },
      { target: 'openai', label: 'openai (gpt-4.1-mini)', state: 'available', available: true, confirm: 'set-default:openai' },
    ]);
    expect(controls[1].targets).toEqual([
      { target: active.id, label: 'active one (every 1 minutes)', state: 'active', available: true, confirm: `pause-job:${active.id}` },
      { target: paused.id, label: 'paused one (every 1 minutes)', state: 'paused', available: false, confirm: `pause-job:${paused.id}` },
    ]);
    expect(controls[2].targets.map((x: any) => [x.target, x.available, x.confirm])).toEqual([[active.id, false, `resume-job:${active.id}`], [paused.id, true, `resume-job:${paused.id}`]]);
    expect(controls[3].targets.map((x: any) => x.available)).toEqual([true, true]);
    for (const c of controls) expect(c.label.length * c.description.length).toBeGreaterThan(0);
  });
});

describe('POST /api/v1/controls/{id}', () => {
  it('pauses and resumes a job with the exact confirm strings, audited as web.control allow', async () => {
    const t = await app();
    const job = await createJob(t);
    const paused = await control(t, 'scheduler.pause_job', { target: job.id, confirm: `pause-job:${job.id}` });
    expect(paused.status).toBe(200);
    expect((await json(paused)).data).toEqual({ control: 'scheduler.pause_job', target: job.id, previous: 'active', current: 'paused' });
    expect((await jobs(t))[0]).toMatchObject({ state: 'paused', next_run_at: null });
    const resumed = await control(t, 'scheduler.resume_job', { target: job.id, confirm: `resume-job:${job.id}` });
    expect((await json(resumed)).data).toEqual({ control: 'scheduler.resume_job', target: job.id, previous: 'paused', current: 'active' });
    expect((await jobs(t))[0]).toMatchObject({ state: 'active', next_run_at: expect.any(String) });
    expect(controlAudit(t).map((e) => ({ result: e.result, category: e.category, action: e.action, source: e.source, task_id: e.task_id, detail: e.detail }))).toEqual([
      {
        result: 'allow', category: 'web', action: 'scheduler.pause_job', source: '127.0.0.1', task_id: job.id,
        detail: { control: 'scheduler.pause_job', target: job.id, result: 'allowed', reason: 'confirmed', previous: 'active', current: 'paused', request_id: expect.any(String) },
      },
      {
        result: 'allow', category: 'web', action: 'scheduler.resume_job', source: '127.0.0.1', task_id: job.id,
        detail: { control: 'scheduler.resume_job', target: job.id, result: 'allowed', reason: 'confirmed', previous: 'paused', current: 'active', request_id: expect.any(String) },
      },
    ]);
  });

  it('refuses every wrong request with its 4xx, changes nothing, and audits each denial with its reason', async () => {
    const t = await app({ env: OPENAI });
    const job = await createJob(t);
    const other = await createJob(t, 'other');
    const pauseMismatch = 'scheduler.pause_job needs confirm set to exactly "pause-job:<job id>" with <job id> replaced by the target';
    const cases: [string, unknown, number, string, string][] = [
      ['scheduler.explode', { target: job.id, confirm: `explode:${job.id}` }, 404, 'AGENTD_CONTROL_NOT_FOUND',
        'no control "scheduler.explode": the controls are provider.set_default, scheduler.pause_job, scheduler.resume_job, scheduler.remove_job, mcp.accept_manifest'],
      ['scheduler.pause_job', { target: 'job_missing', confirm: 'pause-job:job_missing' }, 404, 'AGENTD_JOB_NOT_FOUND', 'job "job_missing" not found'],
      ['provider.set_default', { target: 'gemini', confirm: 'set-default:gemini' }, 404, 'AGENTD_TARGET_NOT_FOUND', 'no provider "gemini": the providers are offline, anthropic, openai'],
      ['scheduler.pause_job', { target: job.id }, 409, 'AGENTD_CONFIRM_MISMATCH', pauseMismatch],
      ['scheduler.pause_job', { target: job.id, confirm: '' }, 409, 'AGENTD_CONFIRM_MISMATCH', pauseMismatch],
      ['scheduler.pause_job', { target: job.id, confirm: 'pause-job:<job id>' }, 409, 'AGENTD_CONFIRM_MISMATCH', pauseMismatch],
      ['scheduler.pause_job', { target: job.id, confirm: `pause-job:${other.id}` }, 409, 'AGENTD_CONFIRM_MISMATCH', pauseMismatch],
      ['scheduler.pause_job', { target: job.id, confirm: `pause-job:${job.id} ` }, 409, 'AGENTD_CONFIRM_MISMATCH', pauseMismatch],
      ['scheduler.pause_job', { target: job.id, confirm: `resume-job:${job.id}` }, 409, 'AGENTD_CONFIRM_MISMATCH', pauseMismatch],
      ['scheduler.resume_job', { target: job.id, confirm: `resume-job:${job.id}` }, 409, 'AGENTD_STATE_CONFLICT', `job "${job.id}" is already active`],
      ['provider.set_default', { target: 'anthropic', confirm: 'set-default:anthropic' }, 409, 'AGENTD_STATE_CONFLICT',
        'provider "anthropic" is not available: set ANTHROPIC_API_KEY in the environment (providers.anthropic.api_key_env names it)'],
      ['provider.set_default', { target: 'offline', confirm: 'set-default:offline' }, 409, 'AGENTD_STATE_CONFLICT', 'provider "offline" is already the default'],
      ['provider.set_default', { target: 'openai', confirm: 'set-default:OpenAI' }, 409, 'AGENTD_CONFIRM_MISMATCH',
        'provider.set_default needs confirm set to exactly "set-default:<provider>" with <provider> replaced by the target'],
    ];
    for (const [id, body, status, code, message] of cases) {
      expect(await refusal(await control(t, id, body)), `${id} ${JSON.stringify(body)}`).toEqual({ status, body: envelope(code, message) });
    }
    // A paused job cannot be paused again.
    await t.app.scheduler.pause(other.id);
    expect(await refusal(await control(t, 'scheduler.pause_job', { target: other.id, confirm: `pause-job:${other.id}` })))
      .toEqual({ status: 409, body: envelope('AGENTD_STATE_CONFLICT', `job "${other.id}" is already paused`) });

    // Malformed requests are 400s before any control runs.
    expect(await refusal(await control(t, 'scheduler.pause_job', { confirm: `pause-job:${job.id}` })))
      .toEqual({ status: 400, body: envelope('AGENTD_VALIDATION', 'field "target" is required') });
    expect(await refusal(await control(t, 'scheduler.pause_job', { target: job.id, confirm: `pause-job:${job.id}`, force: true })))
      .toEqual({ status: 400, body: envelope('AGENTD_VALIDATION', 'field "force" is not allowed') });

    expect((await jobs(t)).map((j) => j.state)).toEqual(['active', 'paused']);
    expect(await defaultProvider(t)).toBe('offline');
    const denials = controlAudit(t);
    expect(denials).toHaveLength(cases.length + 1);
    expect(denials.every((e) => e.result === 'deny' && e.severity === 'warning' && e.detail.result === 'denied')).toBe(true);
    expect(denials.map((e) => [e.detail.control, e.detail.target, e.detail.reason])).toEqual([
      ...cases.map(([id, body, , , message]) => [id, (body as { target: string }).target, message]),
      ['scheduler.pause_job', other.id, `job "${other.id}" is already paused`],
    ]);
  });

  it('stores a lone surrogate a client put in the target as U+FFFD in the task id, and the audit chain still verifies', async () => {
    const t = await app();
    // JSON.stringify spells a lone surrogate as the escape \ud800, which the server's JSON.parse turns back into one.
    const lone = 'job_\ud800x';
    // 255 characters and an emoji: within the 256 the schema allows, but the task id keeps 256 UTF-16
    // units, which cut the emoji's pair in half.
    const cut = `${'a'.repeat(255)}\u{1F680}`;
    for (const target of [lone, cut]) {
      const response = await control(t, 'scheduler.pause_job', { target, confirm: `pause-job:${target}` });
      expect(response.status).toBe(404);
      expect((await json(response)).code).toBe('AGENTD_JOB_NOT_FOUND');
    }
    const expected = ['job_\uFFFDx', `${'a'.repeat(255)}\uFFFD`];
    const stored = controlAudit(t);
    expect(stored.map((event) => event.task_id)).toEqual(expected);
    // The detail keeps what the client sent, through its JSON escapes.
    expect(stored.map((event) => event.detail.target)).toEqual([lone, cut]);
    const shown = (await json(await t.request('/api/v1/audit?event_type=web.control'))).data.events;
    expect(shown.map((event: any) => event.task_id).reverse()).toEqual(expected);
    expect(await t.app.audit.verify()).toMatchObject({ ok: true });
  });

  it('sets the default provider, and the choice survives a restart', async () => {
    const dir = home('agentd-default-');
    const first = await startTestApp({ home: dir, env: OPENAI });
    const set = await control(first, 'provider.set_default', { target: 'openai', confirm: 'set-default:openai' });
    expect((await json(set)).data).toEqual({ control: 'provider.set_default', target: 'openai', previous: 'offline', current: 'openai' });
    expect(await defaultProvider(first)).toBe('openai');
    const listed = (await json(await first.request('/api/v1/providers'))).data.providers;
    expect(listed.filter((p: any) => p.is_default).map((p: any) => p.name)).toEqual(['openai']);
    expect(controlAudit(first).map((e) => [e.result, e.detail.previous, e.detail.current])).toEqual([['allow', 'offline', 'openai']]);
    await first.close();

    const second = await app({ home: dir, env: OPENAI });
    expect(await defaultProvider(second)).toBe('openai');
    expect(second.log.lines.join('\n')).toContain("default provider is 'openai', chosen with provider.set_default (it overrides providers.default 'offline' in the config)");
    await second.close();

    // Without its key the stored choice cannot be used: the config's default serves, and the log says why.
    const third = await app({ home: dir });
    expect(await defaultProvider(third)).toBe('offline');
    expect(third.log.lines.join('\n')).toMatch(/the default provider 'openai' chosen with provider.set_default cannot be used \(provider 'openai' is not available: /);
  });
});
