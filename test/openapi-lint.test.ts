import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let source: string;
beforeAll(async () => {
  t = await startTestApp();
  source = await (await t.request('/api/v1/openapi.json')).text();
});
afterAll(() => t.close());

describe('the served OpenAPI document', () => {
  it('lints clean with Redocly\'s recommended rules: no error, no warning', async () => {
    // A built-in ruleset, and a document that only refers to itself (#/components/…): nothing is fetched.
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`)).toEqual([]);
  });

  it('states the package\'s licence', () => {
    const { license } = JSON.parse(readFileSync('package.json', 'utf8')) as { license: string };
    expect((JSON.parse(source) as { info: { license: unknown } }).info.license).toEqual({ name: license, identifier: license });
  });
});
