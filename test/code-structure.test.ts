import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { matches, sources, SRC } from './helpers/sources.js';

describe('error matching', () => {
  it('matches errors by class or code, never by name strings', () => {
    const all = sources(SRC);
    expect(matches(all, /\.name\s*[!=]==?\s*['"`]\w*(Error|Exception)['"`]/)).toEqual([]);
    // A set or table of error names, looked up with the error's name.
    expect(matches(all, /\.has\(\s*(err|error|e|cause|current)\.name\s*\)/)).toEqual([]);
    expect(matches(all, /\[\s*(err|error|e|cause|current)(\.constructor)?\.name\s*\]/)).toEqual([]);
  });
});

describe('routes', () => {
  it('take request parts typed from their schemas, without casts', () => {
    expect(matches(sources(join(SRC, 'http')), /request\.(body|query|params)\)?\s+as\s/)).toEqual([]);
  });

  it('are registered under the API prefix, which only the prefix constant spells out', () => {
    expect(matches([join(SRC, 'app.ts')], /['"`]\/api\/v1/)).toEqual([]);
    expect(matches(sources(SRC), /\.(get|post|put|patch|delete|route)\(\s*['"`]\/api\/v1/)).toEqual([]);
  });

  describe('in the OpenAPI document', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it('all sit under /api/v1, and answer 405 there for a wrong method', async () => {
      const doc = (await (await t.request('/api/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
      const paths = Object.keys(doc.paths);
      expect(paths.length).toBeGreaterThan(15);
      // Outside the prefix: the liveness probe for load balancers, Prometheus' scrape and the browser's logout.
      expect(paths.filter((path) => !path.startsWith('/api/v1/')).sort()).toEqual(['/healthz', '/logout', '/metrics']);
      const wrong = await t.request('/api/v1/runs/run_x/cancel', { method: 'GET' });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('POST');
      expect((await t.request('/runs/run_x/cancel', { method: 'POST' })).status).toBe(404);
    });
  });
});
