import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentdApiError, AgentdClient, RunEvent } from '../src/client/index.js';
import { OPENAPI_TYPES_FILE, renderOpenApiTypes } from '../scripts/openapi-types.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { sources, SRC } from './helpers/sources.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('the client\'s types', () => {
  it('are the types of the OpenAPI document the service serves (npm run client:types writes them)', async () => {
    const document = (await (await t.request('/api/v1/openapi.json')).json()) as object;
    const committed = readFileSync(OPENAPI_TYPES_FILE, 'utf8');
    // Not a bare equality: a diff that names the first line apart says what to regenerate.
    const expected = (await renderOpenApiTypes(document)).split('\n');
    const actual = committed.split('\n');
    const first = expected.findIndex((line, i) => line !== actual[i]);
    expect(first === -1 && actual.length === expected.length, `${OPENAPI_TYPES_FILE} differs from the document at line ${first + 1}: run npm run client:types`).toBe(true);
  });

  it('tell a changed document apart', async () => {
    const renamed = (await (await t.request('/api/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    renamed.paths['/api/v1/sessions/{id}/turns'] = renamed.paths['/api/v1/sessions/{id}/history'];
    delete renamed.paths['/api/v1/sessions/{id}/history'];
    expect(await renderOpenApiTypes(renamed)).not.toBe(readFileSync(OPENAPI_TYPES_FILE, 'utf8'));
  });
});

describe('agentd/client', () => {
  it('types each call from the document (checked by the type-check of npm test)', () => {
    // Never run: what matters is what compiles.
    const calls = async (client: AgentdClient) => {
      expectTypeOf(await client.get('/api/v1/runs/{id}', { params: { path: { id: 'run_1' } } })).toHaveProperty('tools_used').toEqualTypeOf<string[]>();
      expectTypeOf((await client.post('/api/v1/chat', { body: { message: 'hi' } })).usage.cost_usd).toBeNumber();
      expectTypeOf<RunEvent['event']>().toEqualTypeOf<'run.start' | 'tool.request' | 'tool.result' | 'approval.request' | 'approval.result' | 'run.complete' | 'run.error' | 'run.cancelled'>();
      expectTypeOf<'AGENTD_RUN_BUSY'>().toMatchTypeOf<NonNullable<AgentdApiError['code']>>();
      // @ts-expect-error a path the document does not have
      await client.get('/api/v1/nope');
      // @ts-expect-error the path parameter is required
      await client.get('/api/v1/sessions/{id}');
      // @ts-expect-error message is required
      await client.post('/api/v1/chat', { body: {} });
      // @ts-expect-error there is no DELETE of the runs list
      await client.delete('/api/v1/runs');
    };
    expect(typeof calls).toBe('function');
  });

  // A helper of src/util/ that imports nothing itself (the event-stream reader) knows no domain and
  // loads nothing else: the client may share it with the service.
  it('loads nothing of the service: its modules import only each other, openapi-fetch and self-contained helpers', () => {
    const outside = sources(join(SRC, 'client')).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier !== 'openapi-fetch' && !/^\.\/[\w-]+\.js$/.test(specifier) && !selfContainedUtil(specifier))
        .map((specifier) => `${file.slice(SRC.length + 1)}: ${specifier}`));
    expect(outside).toEqual([]);
    expect(importsOf(join(SRC, 'client', 'client.ts'))).toContain('../util/event-stream.js');
  });

  it('is the package\'s ./client export (the build is what an installed package runs)', async () => {
    const specifier = 'agentd/client';
    const entry = (await import(specifier)) as typeof import('../src/client/index.js');
    expect(typeof entry.AgentdClient).toBe('function');
    expect(new entry.AgentdApiError(404, 'AGENTD_RUN_NOT_FOUND', 'Run not found', null)).toBeInstanceOf(Error);
  });
});

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

function selfContainedUtil(specifier: string): boolean {
  const name = /^\.\.\/util\/([\w-]+)\.js$/.exec(specifier)?.[1];
  return name !== undefined && importsOf(join(SRC, 'util', `${name}.ts`)).length === 0;
}
