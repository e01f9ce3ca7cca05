import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentdApiError, AgentdClient, type RunEvent } from '../src/client/index.js';
import { startAppWithFakeOpenAI } from './helpers/agent.js';
import type { TestApp } from './helpers/app.js';
import type { FakeLlmServer } from './fakes/fake-llm-server.js';

type Json = Record<string, any>;

interface Document {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json> };
}

let t: TestApp;
let llm: FakeLlmServer;
let stop: () => Promise<void>;
let doc: Document;
let ajv: InstanceType<typeof Ajv2020>;
/** What handlers returned, before the response schema serialised it: [operation, status, payload]. */
const payloads: [string, number, unknown][] = [];
beforeAll(async () => {
  ({ t, server: llm, close: stop } = await startAppWithFakeOpenAI({
    // A call of current_time waits for an operator: the approval operations get one to list and decide.
    config: { tools: { require_approval: ['current_time'] } },
    // The serialiser drops fields its schema lacks and turns a null into "" for a string: what the
    // handler returned shows what the document leaves out.
    beforeListen: (app) => {
      app.http.addHook('preSerialization', async (request, reply, payload) => {
        const path = (request.routeOptions.url ?? '').replace(/:(\w+)/g, '{$1}');
        if (payload !== null) payloads.push([`${request.method} ${path}`, reply.statusCode, payload]);
        return payload;
      });
    },
  }));
  doc = (await (await t.request('/api/v1/openapi.json')).json()) as Document;
  ajv = new Ajv2020({ allowUnionTypes: true });
  // The document's named schemas, where its references can reach them.
  ajv.addSchema({ $id: 'agentd', $defs: doc.components.schemas });
});
afterAll(() => stop());

/** A document schema as ajv resolves it: `#/components/schemas/X` becomes `agentd#/$defs/X`. */
function compile(schema: Json): ValidateFunction {
  return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"agentd#/$defs/')));
}

/** The schema with every object that lists its properties closed to others (what the document does not name is an omission). */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'properties'
    ? Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, closed(s)]))
    : closed(value)]));
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

function operations(): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
}

/**
 * The operation a request URL belongs to: its method and the document path whose template matches
 * (a literal path wins over a template, as in the router: `/runs/hourly` is not `/runs/{id}`).
 */
function operationOf(method: string, pathname: string): string {
  if (doc.paths[pathname]?.[method.toLowerCase()]) return `${method} ${pathname}`;
  const templates = Object.keys(doc.paths).filter((template) => {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return pattern.test(pathname) && doc.paths[template]![method.toLowerCase()];
  });
  expect(templates, `${method} ${pathname}`).toHaveLength(1);
  return `${method} ${templates[0]}`;
}

/** A response as listed, or the named one it refers to (`#/components/responses/X`: the client errors). */
function named(response: Json | undefined): Json | undefined {
  return typeof response?.$ref === 'string' ? doc.components.responses[response.$ref.split('/').pop()!] : response;
}

/** Successes per operation, and every answer checked against the document. */
const succeeded = new Set<string>();
const answered: string[] = [];
const checks: Promise<void>[] = [];

async function checkAnswer(request: Request, response: Response): Promise<void> {
  const operation = operationOf(request.method, new URL(request.url).pathname);
  const [method, path] = operation.split(' ') as [string, string];
  const responses = doc.paths[path]![method.toLowerCase()]!.responses;
  const status = String(response.status);
  answered.push(`${operation} ${status}`);
  // A success must be documented as such; an error may fall under `default`.
  const documented = named(responses[status] ?? (response.ok ? undefined : responses.default));
  expect(documented, `${operation} answered ${status}, which the document does not list`).toBeDefined();
  const content = documented!.content as Record<string, { schema: Json }> | undefined;
  const body = await response.text();
  if (!content) {
    expect(body, `${operation} ${status} has no body in the document`).toBe('');
  } else if (content['text/event-stream']) {
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const validate = compile({ $ref: '#/components/schemas/RunEvent' });
    for (const frame of body.split('\n\n').filter((f) => /^event: /m.test(f))) {
      const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(frame)?.[1];
      const event = { id: Number(field('id')), event: field('event'), data: JSON.parse(field('data')!) };
      expect(validate(event), `${operation}: ${JSON.stringify(event)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  } else if (content['text/plain']) {
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(body.length, `${operation} ${status}`).toBeGreaterThan(0);
  } else {
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const validate = compile(content['application/json']!.schema);
    const parsed = JSON.parse(body) as unknown;
    expect(validate(parsed), `${operation} ${status}: ${ajv.errorsText(validate.errors)}\n${body.slice(0, 2000)}`).toBe(true);
  }
  if (response.ok) succeeded.add(operation);
}

/** The client's fetch: the real one, each answer also checked against the document. */
async function recordingFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  checks.push(checkAnswer(request, response.clone()));
  return response;
}

async function eventsOf(client: AgentdClient, runId: string, lastEventId?: number): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of client.runEvents(runId, { lastEventId })) events.push(event);
  return events;
}

async function refusal(call: Promise<unknown>): Promise<AgentdApiError> {
  const error = await call.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(AgentdApiError);
  return error as AgentdApiError;
}

describe('the typed client against a running service', () => {
  it('calls every operation of the OpenAPI document, and every answer matches the document', async () => {
    const client = new AgentdClient({ baseUrl: `${t.url}/`, apiKey: t.apiKey, fetch: recordingFetch });

    // System.
    expect(await client.get('/healthz')).toEqual({ status: 'ok' });
    expect(await client.get('/api/v1/health')).toEqual({ status: 'healthy', version: t.app.version });
    expect(await client.get('/api/v1/ready')).toEqual({ status: 'ready' });
    expect((await client.get('/api/v1/status')).default_provider).toBe('openai');
    expect((await client.get('/api/v1/openapi.json')).openapi).toBe('3.1.0');
    expect((await client.get('/api/v1/providers')).providers.map((p) => p.name)).toEqual(expect.arrayContaining(['offline', 'openai']));
    expect((await client.get('/api/v1/tools')).tools.map((tool) => tool.name)).toContain('calculator');
    expect((await client.get('/api/v1/diagnostics')).sections.map((s) => s.key)).toContain('scheduler');

    // Sessions and a chat (through the fake OpenAI server, so the costs list the session).
    const session = await client.post('/api/v1/sessions', { body: { name: 'typed client' } });
    expect(session).toMatchObject({ name: 'typed client', provider: 'openai', turn_count: 0 });
    expect((await client.get('/api/v1/sessions', { params: { query: { limit: '5' } } })).sessions.map((s) => s.id)).toContain(session.id);
    expect((await client.get('/api/v1/sessions/{id}', { params: { path: { id: session.id } } })).id).toBe(session.id);
    llm.enqueue({ text: 'the parcel left on Tuesday' });
    const chat = await client.post('/api/v1/chat', { body: { message: 'where is the parcel?', session_id: session.id } });
    expect(chat).toMatchObject({ response: 'the parcel left on Tuesday', session_id: session.id });
    expect(chat.usage.prompt_tokens).toBeGreaterThan(0);
    const { turns } = await client.get('/api/v1/sessions/{id}/history', { params: { path: { id: session.id }, query: { limit: '10' } } });
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect((await client.get('/api/v1/costs/summary')).sessions.map((s) => s.session_id)).toContain(session.id);
    expect((await client.get('/api/v1/costs/hourly')).hours.map((h) => h.provider)).toContain('openai');
    expect((await client.get('/api/v1/memory/history', { params: { query: { session_id: session.id } } })).turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);

    // A run and its events: whole, resumed after an id, and after the terminal one.
    const run = await client.post('/api/v1/runs', { body: { message: 'what is 17*23?', provider: 'offline' } });
    expect(run.status).toBe('pending');
    const events = await eventsOf(client, run.run_id);
    expect(events.map((e) => [e.id, e.event])).toEqual([[1, 'run.start'], [2, 'tool.request'], [3, 'tool.result'], [4, 'run.complete']]);
    const last = events.at(-1)!;
    if (last.event !== 'run.complete') throw new Error('the run did not complete');
    expect(last.data.response).toContain('391');
    expect((await eventsOf(client, run.run_id, 2)).map((e) => e.id)).toEqual([3, 4]);
    expect(await eventsOf(client, run.run_id, 4)).toEqual([]);
    expect((await client.get('/api/v1/runs/{id}', { params: { path: { id: run.run_id } } })).status).toBe('complete');
    expect((await client.get('/api/v1/runs', { params: { query: { session_id: run.session_id } } })).runs.map((r) => r.run_id)).toEqual([run.run_id]);
    expect((await client.get('/api/v1/overview')).runs.running).toBe(0);
    expect((await client.get('/api/v1/runs/hourly')).hours.filter((h) => h.status === 'complete').reduce((sum, h) => sum + h.runs, 0)).toBeGreaterThanOrEqual(1);
    // A run the slow provider keeps busy is cancelled.
    llm.enqueue({ text: 'too late', delayMs: 10_000 });
    const slow = await client.post('/api/v1/runs', { body: { message: 'take your time' } });
    await expect.poll(() => llm.requests.length).toBe(2);
    expect((await client.post('/api/v1/runs/{id}/cancel', { params: { path: { id: slow.run_id } } })).status).toBe('cancelled');
    expect((await eventsOf(client, slow.run_id)).at(-1)!.event).toBe('run.cancelled');

    // Memory: search, pin, delete.
    const { results } = await client.get('/api/v1/memory/search', { params: { query: { q: 'parcel Tuesday' } } });
    const turn = results.find((r) => r.role === 'assistant')!;
    expect(turn.preview).toContain('parcel');
    expect(await client.post('/api/v1/memory/turns/{id}/pin', { params: { path: { id: turn.id } }, body: { pinned: true } })).toEqual({ id: turn.id, pinned: true });
    expect(await client.delete('/api/v1/memory/turns/{id}', { params: { path: { id: turn.id } } })).toEqual({ id: turn.id, deleted: true });

    // Scheduler and controls.
    const job = await client.post('/api/v1/scheduler/jobs', { body: { name: 'tick', schedule: 'every 1 hours', task: 'what time is it?', provider: 'offline' } });
    expect(job.state).toBe('active');
    const listed = await client.get('/api/v1/scheduler/jobs', { params: { query: { limit: '10', offset: '0' } } });
    expect(listed).toMatchObject({ total: 1, has_more: false, jobs: [{ id: job.id, task_preview: 'what time is it?', task_chars: 16 }] });
    expect(await client.get('/api/v1/scheduler/jobs/{id}', { params: { path: { id: job.id } } })).toEqual(job);
    const pause = (await client.get('/api/v1/controls')).controls.find((c) => c.id === 'scheduler.pause_job')!;
    const target = pause.targets.find((candidate) => candidate.target === job.id)!;
    expect(await client.post('/api/v1/controls/{id}', { params: { path: { id: pause.id } }, body: { target: job.id, confirm: target.confirm } }))
      .toEqual({ control: 'scheduler.pause_job', target: job.id, previous: 'active', current: 'paused' });
    expect(await client.delete('/api/v1/scheduler/jobs/{id}', { params: { path: { id: job.id }, query: { confirm: `remove-job:${job.id}` } } }))
      .toMatchObject({ control: 'scheduler.remove_job', target: job.id });

    // An approval: the model calls a tool that needs one; the operator allows it once.
    llm.enqueue({ toolCalls: [{ id: 'call_time', name: 'current_time', arguments: {} }] }, { text: 'it is now' });
    const waiting = await client.post('/api/v1/runs', { body: { message: 'what time is it?' } });
    await expect.poll(async () => (await client.get('/api/v1/approvals', { params: { query: { state: 'pending' } } })).approvals.length).toBe(1);
    const [pending] = (await client.get('/api/v1/approvals', { params: { query: { state: 'pending' } } })).approvals;
    expect(pending).toMatchObject({ run_id: waiting.run_id, kind: 'tool', state: 'pending' });
    expect((await client.get('/api/v1/approvals/{id}', { params: { path: { id: pending!.id } } })).request).toContain('current_time');
    expect((await client.post('/api/v1/approvals/{id}', {
      params: { path: { id: pending!.id } }, body: { decision: 'allow_once', confirm: `approve:${pending!.id}` },
    })).state).toBe('allowed');
    expect((await eventsOf(client, waiting.run_id)).map((e) => e.event)).toEqual(
      ['run.start', 'tool.request', 'approval.request', 'approval.result', 'tool.result', 'run.complete'],
    );

    // Prometheus metrics: text, not the envelope.
    expect(await client.metrics()).toMatch(/^agentd_http_requests_total\{.*\} \d+$/m);

    // Audit, logout (an API key has no browser session to end), and the session's end.
    const audit = await client.get('/api/v1/audit', { params: { query: { event_type: 'web.control', limit: '10' } } });
    expect(audit.events.map((e) => e.event_type)).toEqual(['web.control', 'web.control']);
    expect(await client.post('/logout')).toEqual({ logged_out: false });
    expect(await client.delete('/api/v1/sessions/{id}', { params: { path: { id: session.id } } })).toEqual({ id: session.id, ended: true });

    // Refusals reject with the envelope's code, message and status.
    const missing = await refusal(client.get('/api/v1/sessions/{id}', { params: { path: { id: session.id } } }));
    expect(missing).toMatchObject({ status: 404, code: 'AGENTD_SESSION_NOT_FOUND', message: 'Session not found' });
    expect(missing.requestId).toMatch(/\S/);
    const wrongConfirm = await refusal(client.post('/api/v1/controls/{id}', { params: { path: { id: 'provider.set_default' } }, body: { target: 'offline', confirm: 'yes' } }));
    expect(wrongConfirm).toMatchObject({ status: 409, code: 'AGENTD_CONFIRM_MISMATCH' });
    expect(await refusal(client.post('/api/v1/runs/{id}/cancel', { params: { path: { id: run.run_id } } }))).toMatchObject({ status: 409, code: 'AGENTD_RUN_FINISHED' });
    expect(await refusal(client.post('/api/v1/chat', { body: { message: '' } }))).toMatchObject({ status: 400, code: 'AGENTD_VALIDATION' });
    expect(await refusal(client.runEvents('run_unknown').next())).toMatchObject({ status: 404, code: 'AGENTD_RUN_NOT_FOUND' });
    const stranger = new AgentdClient({ baseUrl: t.url, apiKey: 'not-the-key', fetch: recordingFetch });
    expect(await refusal(stranger.get('/api/v1/status'))).toMatchObject({ status: 401, code: 'AGENTD_UNAUTHORIZED' });

    await Promise.all(checks);
    for (const [operation, status, payload] of payloads) {
      const [method, path] = operation.split(' ') as [string, string];
      const responses = doc.paths[path]![method.toLowerCase()]!.responses;
      const documented = named(responses[String(status)] ?? responses.default)!;
      expect(documented.content, `${operation} ${status}`).toBeDefined();
      const schema = documented.content['application/json'].schema;
      const validate = compile({ $defs: { closed: closed(schema) }, $ref: '#/$defs/closed' });
      expect(validate(JSON.parse(JSON.stringify(payload))), `${operation} ${status} as returned: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
    expect(payloads.length).toBeGreaterThan(30);
    // Every operation the document lists answered a success through the client: as many as it has, and the same ones.
    const all = operations();
    expect(all.length).toBeGreaterThanOrEqual(30);
    expect(succeeded.size).toBe(all.length);
    expect([...succeeded].sort()).toEqual([...all].sort());
    expect(answered).toEqual(expect.arrayContaining(['GET /api/v1/runs/{id}/events 204', 'GET /api/v1/status 401', 'POST /api/v1/chat 400']));
  });

  it('is documented completely: every object in an answer says which of its fields are always there', () => {
    const loose: string[] = [];
    const walk = (schema: unknown, where: string): void => {
      if (Array.isArray(schema)) return schema.forEach((s, i) => walk(s, `${where}[${i}]`));
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as Json;
      if (node.properties && !Array.isArray(node.required)) loose.push(where);
      for (const [key, value] of Object.entries(node)) walk(value, `${where}.${key}`);
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) walk(op.responses, `${method.toUpperCase()} ${path}`);
    }
    walk(doc.components.schemas, 'components.schemas');
    expect(loose).toEqual([]);
  });
});
