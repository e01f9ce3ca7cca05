import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FAMILIES } from '../src/http/resources/metrics/index.js';
import { startTestApp, type TestApp } from './helpers/app.js';

type Operation = {
  summary?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { required: boolean };
  responses: Record<string, unknown>;
};

let t: TestApp;
let paths: Record<string, Record<string, Operation>>;
let components: { schemas: Record<string, Record<string, unknown>>; responses: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  t = await startTestApp();
  const doc = (await (await t.request('/api/v1/openapi.json')).json()) as { paths: typeof paths; components: typeof components };
  ({ paths, components } = doc);
});
afterAll(() => t.close());

describe('OpenAPI document', () => {
  it('lists every API route', () => {
    const expected = [
      'GET /api/v1/health', 'GET /api/v1/status', 'GET /api/v1/providers', 'GET /api/v1/tools', 'GET /api/v1/diagnostics',
      'GET /api/v1/costs/summary', 'POST /api/v1/sessions', 'GET /api/v1/sessions', 'GET /api/v1/sessions/{id}',
      'DELETE /api/v1/sessions/{id}', 'GET /api/v1/sessions/{id}/history', 'POST /api/v1/chat', 'POST /api/v1/runs',
      'GET /api/v1/runs', 'GET /api/v1/runs/{id}', 'GET /api/v1/runs/{id}/events', 'POST /api/v1/runs/{id}/cancel',
      'GET /api/v1/memory/search', 'POST /api/v1/memory/turns/{id}/pin', 'DELETE /api/v1/memory/turns/{id}',
      'GET /api/v1/scheduler/jobs', 'POST /api/v1/scheduler/jobs', 'GET /api/v1/scheduler/jobs/{id}', 'DELETE /api/v1/scheduler/jobs/{id}', 'GET /api/v1/controls',
      'POST /api/v1/controls/{id}',
      'GET /api/v1/approvals', 'GET /api/v1/approvals/{id}', 'POST /api/v1/approvals/{id}',
      'GET /api/v1/audit', 'GET /metrics',
    ];
    const present = Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(present).toEqual(expect.arrayContaining(expected));
  });

  it('gives every operation a summary, its path parameters and a documented success response', () => {
    for (const [path, ops] of Object.entries(paths)) {
      const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.summary, where).toBeTruthy();
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared.sort(), where).toEqual(pathParams.sort());
        expect(Object.keys(op.responses).some((code) => code.startsWith('2')), where).toBe(true);
      }
    }
  });

  it('documents 507 with the error envelope on every route that writes to the store', () => {
    const writes = [['/api/v1/chat', 'post'], ['/api/v1/runs', 'post'], ['/api/v1/memory/turns/{id}/pin', 'post'], ['/api/v1/memory/turns/{id}', 'delete'],
      ['/api/v1/approvals/{id}', 'post']] as const;
    for (const [path, method] of writes) {
      expect(paths[path]![method]!.responses['507'], `${method} ${path}`).toMatchObject({
        description: expect.stringContaining('disk is full'),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      });
    }
    expect(components.schemas.Error).toMatchObject({ required: ['status', 'error', 'code'] });
    // Routes that only read never answer it.
    expect(paths['/api/v1/memory/search']!.get!.responses['507']).toBeUndefined();
  });

  it('names each operation once, in camelCase, and lists the client errors it can answer', () => {
    const ops = Object.entries(paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op: op as Operation & { operationId?: string } })));
    const ids = ops.map(({ op }) => op.operationId);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id ?? ''))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(paths['/api/v1/runs/{id}/events']!.get).toMatchObject({ operationId: 'streamRunEvents' });
    const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
    // The pipeline's refusals apply to every route, the public ones included.
    for (const { where, op } of ops) expect(op.responses, where).toMatchObject({ 401: ref('Unauthorized'), 429: ref('TooManyRequests') });
    // What the handler refuses, declared by its route; what Fastify and the pipeline refuse, derived from it.
    expect(paths['/api/v1/runs/{id}/cancel']!.post!.responses).toMatchObject({ 403: ref('Forbidden'), 404: ref('NotFound'), 409: ref('Conflict') });
    expect(paths['/api/v1/chat']!.post!.responses).toMatchObject({ 400: ref('BadRequest'), 413: ref('PayloadTooLarge'), 415: ref('UnsupportedMediaType') });
    expect(paths['/api/v1/ready']!.get!.responses['403']).toBeUndefined();
    expect(paths['/api/v1/status']!.get!.responses['400']).toBeUndefined();
    expect(components.responses.NotFound).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  });

  it('describes each event of a run\'s stream as a RunEvent', () => {
    expect(paths['/api/v1/runs/{id}/events']!.get!.responses['200']).toMatchObject({
      content: { 'text/event-stream': { schema: { $ref: '#/components/schemas/RunEvent' } } },
    });
  });

  it('lists every metric family in the description of GET /metrics', () => {
    const description = (paths['/metrics']!.get! as { description?: string }).description ?? '';
    for (const [family] of METRIC_FAMILIES) expect(description).toContain(family);
  });

  it('documents request bodies, required only when a field is', () => {
    expect(paths['/api/v1/chat']!.post!.requestBody?.required).toBe(true);
    expect(paths['/api/v1/sessions']!.post!.requestBody?.required).toBe(false);
    expect(paths['/api/v1/memory/search']!.get!.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(['q', 'limit', 'session_id']));
    expect(paths['/api/v1/scheduler/jobs']!.post!.requestBody?.required).toBe(true);
    // DELETE of a job takes its confirm string in the body or the query.
    expect(paths['/api/v1/scheduler/jobs/{id}']!.delete!.requestBody?.required).toBe(false);
    expect(paths['/api/v1/scheduler/jobs/{id}']!.delete!.parameters?.map((p) => p.name)).toEqual(['id', 'confirm']);
    // A run stream resumes from the Last-Event-ID header, or the query parameter for clients that cannot set one; include=deltas adds the live text.
    expect(paths['/api/v1/runs/{id}/events']!.get!.parameters?.map((p) => `${p.in} ${p.name}`)).toEqual(['path id', 'query last_event_id', 'query include', 'header last-event-id']);
    expect(paths['/api/v1/audit']!.get!.parameters?.map((p) => p.name).sort()).toEqual([
      'action', 'actor', 'category', 'event_type', 'limit', 'offset', 'q', 'result', 'session_id', 'severity', 'since', 'source', 'subsystem',
      'task_id', 'until',
    ]);
  });
});
