import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../src/listener/errors.js';
import { postJson } from './helpers/agent.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { startChannel, stopChannels } from './helpers/webhook.js';

/** Status and body of an error response, for one comparison. */
async function refusal(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

const envelope = (code: string, error: unknown = expect.any(String)) => ({ status: 'error', error, code });

describe('error envelope codes (REST API)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      config: { api: { rate_limit_rpm: 40 } },
      beforeListen: (app) => {
        app.http.get('/api/v1/test-boom', async () => {
          throw new Error('database password=hunter2 exploded');
        });
      },
    });
  });
  afterAll(() => t.close());

  it('names each kind of failure with its catalogue code', async () => {
    expect(await refusal(await t.request('/api/v1/no-such-route'))).toEqual({ status: 404, body: envelope('AGENTD_NOT_FOUND', 'Not found') });
    expect(await refusal(await t.request('/api/v1/health', { method: 'DELETE' })))
      .toEqual({ status: 405, body: envelope('AGENTD_METHOD_NOT_ALLOWED', 'Method not allowed') });
    expect(await refusal(await fetch(`${t.url}/api/v1/health`))).toEqual({ status: 401, body: envelope('AGENTD_UNAUTHORIZED', 'Unauthorized') });
    expect(await refusal(await postJson(t, '/api/v1/chat', { message: 'hi', sesion_id: 'x' })))
      .toEqual({ status: 400, body: envelope('AGENTD_VALIDATION', 'field "sesion_id" is not allowed') });
    expect(await refusal(await t.request('/api/v1/memory/search')))
      .toEqual({ status: 400, body: envelope('AGENTD_VALIDATION', 'query parameter "q" is required') });
    expect(await refusal(await postJson(t, '/api/v1/chat', { message: 'x'.repeat(32_001) })))
      .toEqual({ status: 413, body: envelope('AGENTD_PAYLOAD_TOO_LARGE', 'field "message" is longer than 32000 characters') });
    expect(await refusal(await t.request('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' })))
      .toEqual({ status: 415, body: envelope('AGENTD_UNSUPPORTED_MEDIA_TYPE') });
    expect(await refusal(await t.request('/api/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":' })))
      .toEqual({ status: 400, body: envelope('AGENTD_BAD_REQUEST', 'Request body is not valid JSON') });
    expect(await refusal(await postJson(t, '/api/v1/sessions', { provider: 'nope' })))
      .toEqual({ status: 400, body: envelope('AGENTD_UNKNOWN_PROVIDER', expect.stringMatching(/^unknown provider 'nope'/)) });
    expect(await refusal(await t.request('/api/v1/sessions/ses_missing'))).toEqual({ status: 404, body: envelope('AGENTD_SESSION_NOT_FOUND', 'Session not found') });
    expect(await refusal(await t.request('/api/v1/runs/run_missing/cancel', { method: 'POST' })))
      .toEqual({ status: 404, body: envelope('AGENTD_RUN_NOT_FOUND') });
    expect(await refusal(await t.request('/api/v1/memory/turns/turn_missing', { method: 'DELETE' })))
      .toEqual({ status: 404, body: envelope('AGENTD_TURN_NOT_FOUND', 'Turn not found') });
    expect(await refusal(await t.request('/api/v1/test-boom'))).toEqual({ status: 500, body: envelope('AGENTD_INTERNAL', 'Internal server error') });
  });

  it('answers the rate limit with AGENTD_RATE_LIMITED', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 60 && !limited; i++) {
      const res = await t.request('/api/v1/health');
      if (res.status === 429) limited = res;
      else await res.body?.cancel();
    }
    expect(limited && (await refusal(limited))).toEqual({ status: 429, body: envelope('AGENTD_RATE_LIMITED', 'Rate limit exceeded') });
  });
});

describe('error envelope codes (webhook listener)', () => {
  afterEach(() => stopChannels());

  it('uses the same catalogue', async () => {
    const channel = await startChannel();
    const url = `http://127.0.0.1:${channel.port}/`;
    expect(await refusal(await fetch(url))).toEqual({ status: 405, body: envelope('AGENTD_METHOD_NOT_ALLOWED', 'Method not allowed') });
    const post = (body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await refusal(await post('{"sender":"ci"}'))).toEqual({ status: 400, body: envelope('AGENTD_VALIDATION', 'field "prompt" is required') });
    expect(await refusal(await post('{"prompt":'))).toEqual({ status: 400, body: envelope('AGENTD_BAD_REQUEST', 'Request body is not valid JSON') });
  });
});

describe('the README documents the catalogue', () => {
  it('lists every code with its status in the REST API section', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
      expect(readme, code).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${status}\\s*\\|`));
    }
  });
});
