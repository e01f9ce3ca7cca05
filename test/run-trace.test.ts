import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, finishedRun, json, postJson, readEvents, startAppWithFakeOpenAI, startRun } from './helpers/agent.js';
import { startTestApp, type TestApp, type TestAppOptions } from './helpers/app.js';

/**
 * A run's trace in GET /api/v1/runs/{id}, through the real app on a real port and SQLite file: the
 * offline provider calls real tools (calculator, web_fetch against a local upstream), approvals are
 * decided over the API.
 */
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function start(options: TestAppOptions = {}): Promise<TestApp> {
  const t = await startTestApp(options);
  apps.push(t);
  return t;
}

async function getRun(t: TestApp, runId: string): Promise<any> {
  return (await json(await t.request(`/api/v1/runs/${runId}`))).data;
}

/** The run once finished, as GET /runs/{id} answers it. */
async function tracedRun(t: TestApp, runId: string): Promise<any> {
  await finishedRun(t, runId);
  return getRun(t, runId);
}

async function pendingApprovalOf(t: TestApp, runId: string): Promise<any> {
  return eventually(async () => {
    const list = (await json(await t.request('/api/v1/approvals?state=pending'))).data.approvals as any[];
    return list.find((a) => a.run_id === runId);
  });
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SECRET = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345';

describe('the trace of a run', () => {
  it('shows a tool call with its arguments, result preview and duration; the model and ordered timings', async () => {
    const t = await start();
    const run = await startRun(t, { message: 'what is 6*7?' });
    const done = await tracedRun(t, run.run_id);
    expect(done).toMatchObject({ status: 'complete', model: 'offline', first_token_at: expect.stringMatching(ISO) });
    expect(done.trace.steps).toEqual([{
      call_id: expect.any(String), tool: 'calculator', arguments: { expression: '6*7' },
      started_at: expect.stringMatching(ISO), finished_at: expect.stringMatching(ISO), duration_ms: expect.any(Number),
      is_error: false, result_preview: expect.stringContaining('42'), result_truncated: false, error: null, approval: null,
    }]);
    const [step] = done.trace.steps;
    expect(step.started_at <= step.finished_at).toBe(true);
    expect(done.trace.approvals).toEqual([]);

    const { timings } = done.trace;
    expect(timings).toMatchObject({ queued_at: run.created_at, started_at: done.started_at, first_token_at: done.first_token_at, finished_at: done.finished_at });
    const order = [timings.queued_at, timings.started_at, timings.first_token_at, step.started_at, timings.finished_at].map(Date.parse);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(timings.queue_ms).toBe(Date.parse(timings.started_at) - Date.parse(timings.queued_at));
    expect(timings.total_ms).toBe(Date.parse(timings.finished_at) - Date.parse(timings.queued_at));

    // The stored tool.result event carries what the trace shows; the lists leave the trace out.
    const { events } = await readEvents(t, run.run_id);
    expect(JSON.parse(events.find((e) => e.event === 'tool.result')!.data)).toMatchObject({
      call_id: step.call_id, result_preview: step.result_preview, started_at: step.started_at, finished_at: step.finished_at,
    });
    const listed = (await json(await t.request(`/api/v1/runs?session_id=${run.session_id}`))).data.runs;
    expect(listed[0]).toMatchObject({ run_id: run.run_id, model: 'offline' });
    expect(listed[0].trace).toBeUndefined();
    expect((await json(await t.request('/api/v1/runs'))).data.runs[0].trace).toBeUndefined();
  });

  it('records the model the provider reported for its last call, not the one configured', async () => {
    const { t, server, close } = await startAppWithFakeOpenAI();
    try {
      server.enqueue(
        { toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }], model: 'gpt-4.1-mini-2025-04-14' },
        { text: 'two', model: 'gpt-4.1-mini-2025-05-01' },
      );
      const run = await startRun(t, { message: 'add' });
      const done = await tracedRun(t, run.run_id);
      expect(done).toMatchObject({ status: 'complete', response: 'two', resolved_provider: 'openai', model: 'gpt-4.1-mini-2025-05-01' });
      expect(done.trace.steps.map((step: any) => [step.tool, step.result_preview])).toEqual([['calculator', '2']]);
    } finally {
      await close();
    }
  });

  it('records a model name the upstream sends with NUL or at great length without the NUL, bounded', async () => {
    const { t, server, close } = await startAppWithFakeOpenAI();
    try {
      server.enqueue({ text: 'hi', model: `gpt\u0000${'m'.repeat(500)}` });
      const run = await startRun(t, { message: 'hello' });
      const done = await tracedRun(t, run.run_id);
      expect(done.status).toBe('complete');
      expect(done.model).toBe(`gpt\uFFFD${'m'.repeat(196)}`);
    } finally {
      await close();
    }
  });

  it('answers 404 for an unknown run', async () => {
    const t = await start();
    const response = await t.request('/api/v1/runs/run_unknown');
    expect([response.status, (await json(response)).code]).toEqual([404, 'AGENTD_RUN_NOT_FOUND']);
  });

  it('shows a tool approval pending while the run waits, then who decided it and when', async () => {
    const t = await start({ config: { tools: { require_approval: ['calculator'] } } });
    const run = await startRun(t, { message: 'what is 2+3' });
    const approval = await pendingApprovalOf(t, run.run_id);

    // Live: the call is asked and waits; it has no result yet.
    const waiting = await eventually(async () => {
      const current = await getRun(t, run.run_id);
      return current.trace.steps[0]?.approval ? current : undefined;
    });
    // Known on the replica executing it before its end is stored.
    expect(waiting).toMatchObject({ status: 'waiting_approval', model: 'offline', first_token_at: expect.stringMatching(ISO) });
    expect(waiting.trace.steps).toEqual([expect.objectContaining({
      tool: 'calculator', arguments: { expression: '2+3' }, finished_at: null, duration_ms: null, is_error: null, result_preview: null,
      approval: { approval_id: approval.id, status: 'pending', decision: null, decided_by: null, decided_at: null },
    })]);
    expect(waiting.trace.timings).toMatchObject({ finished_at: null, total_ms: null, queue_ms: expect.any(Number) });

    const decided = await postJson(t, `/api/v1/approvals/${approval.id}`, { decision: 'allow_once', confirm: `approve:${approval.id}` });
    expect(decided.status).toBe(200);
    const done = await tracedRun(t, run.run_id);
    const decidedAt = (await json(await t.request(`/api/v1/approvals/${approval.id}`))).data.decided_at;
    expect(decidedAt).toMatch(ISO);
    expect(done.trace.steps[0]).toMatchObject({
      is_error: false, result_preview: expect.stringContaining('5'),
      approval: { approval_id: approval.id, status: 'allowed', decision: 'allow_once', decided_by: 'api_key', decided_at: decidedAt },
    });
    expect(done.trace.approvals).toEqual([{
      approval_id: approval.id, kind: 'tool', subject: 'calculator', status: 'allowed', decision: 'allow_once',
      created_at: approval.created_at, decided_at: decidedAt, decided_by: 'api_key',
    }]);
    // The call's start is when it was asked, before the wait; its duration is the tool's own.
    const step = done.trace.steps[0];
    expect(Date.parse(step.started_at)).toBeLessThanOrEqual(Date.parse(approval.created_at));
    expect(step.duration_ms).toBeLessThan(Date.parse(step.finished_at) - Date.parse(step.started_at) + 1);
  });
});

describe('the trace of web requests', () => {
  let upstream: Server;
  let port: number;
  beforeAll(async () => {
    upstream = createServer((request, response) => {
      const path = (request.url ?? '').split('?')[0];
      if (path === '/fail') {
        response.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      if (path === '/secret') response.end(`the key is ${SECRET}, keep it`);
      else if (path === '/huge') response.end(`start ${'x'.repeat(30_000)} end`);
      else response.end('upstream says hello');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    port = (upstream.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  const webApp = () => start({
    config: {
      network: {
        interactive_approval: 'api', allowed_hosts: [`127.0.0.1:${port}`],
        rest_policies: [{ host: '127.0.0.1', method: 'GET', path: '/private/**', action: 'deny' }],
      },
    },
  });

  it('keeps a secret out of the preview and the arguments, but shows the host called', async () => {
    const t = await webApp();
    const run = await startRun(t, { message: `fetch http://127.0.0.1:${port}/secret?token=querysecret123` });
    const done = await tracedRun(t, run.run_id);
    const [step] = done.trace.steps;
    expect(step).toMatchObject({ tool: 'web_fetch', is_error: false, result_truncated: false, error: null });
    expect(step.arguments.url).toBe(`http://127.0.0.1:${port}/secret?token=[REDACTED]`);
    expect(step.result_preview).toContain(`http://127.0.0.1:${port}/secret?token=[REDACTED]`);
    expect(step.result_preview).toContain('the key is [REDACTED], keep it');
    const trace = JSON.stringify(done.trace);
    expect(trace).not.toContain(SECRET);
    expect(trace).not.toContain('querysecret123');
    expect(JSON.stringify(done)).not.toContain(SECRET);
  });

  it('bounds the preview of a huge result and says it was cut', async () => {
    const t = await webApp();
    const run = await startRun(t, { message: `fetch http://127.0.0.1:${port}/huge` });
    const [step] = (await tracedRun(t, run.run_id)).trace.steps;
    expect(step).toMatchObject({ tool: 'web_fetch', is_error: false, result_truncated: true });
    expect(step.result_preview).toHaveLength(2_000);
    expect(step.result_preview).toContain('start xxx');
  });

  it('shows an erroring tool with its error', async () => {
    const t = await webApp();
    const run = await startRun(t, { message: `fetch http://127.0.0.1:${port}/fail` });
    const [step] = (await tracedRun(t, run.run_id)).trace.steps;
    expect(step).toMatchObject({ tool: 'web_fetch', is_error: true, error: expect.stringContaining('HTTP 500') });
    expect(step.error.length).toBeLessThanOrEqual(500);
  });

  it('shows a refused request put to the operator with its origin, and the denial', async () => {
    const t = await webApp();
    const run = await startRun(t, { message: `fetch http://127.0.0.1:${port}/private/x` });
    const approval = await pendingApprovalOf(t, run.run_id);
    await postJson(t, `/api/v1/approvals/${approval.id}`, { decision: 'deny', confirm: `deny:${approval.id}` });
    const done = await tracedRun(t, run.run_id);
    expect(done.trace.approvals).toEqual([expect.objectContaining({
      approval_id: approval.id, kind: 'network', subject: `http://127.0.0.1:${port}`, status: 'denied', decision: 'deny', decided_by: 'api_key',
    })]);
    expect(done.trace.steps).toEqual([expect.objectContaining({
      tool: 'web_fetch', is_error: true, approval: expect.objectContaining({ approval_id: approval.id, status: 'denied', decided_by: 'api_key' }),
    })]);
  });
});
