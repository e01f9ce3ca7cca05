import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { createMemoryLogger } from '../src/log.js';
import { randomToken } from '../src/security/ids/tokens.js';
import { OPENAPI_TYPES_FILE, renderOpenApiTypes } from './openapi-types.js';

/**
 * `npm run client:types`: builds the service (on a throw-away home, without listening), reads its
 * OpenAPI document the way a client would, and writes the client's types from it.
 */
const home = mkdtempSync(join(tmpdir(), 'agentd-openapi-'));
try {
  const apiKey = randomToken(16);
  const app = await createApp({ home, config: { api: { api_key: apiKey } }, env: {}, log: createMemoryLogger() });
  try {
    await app.http.ready();
    const answer = await app.http.inject({ url: '/api/v1/openapi.json', headers: { authorization: `Bearer ${apiKey}` } });
    if (answer.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json answered ${answer.statusCode}: ${answer.body}`);
    writeFileSync(OPENAPI_TYPES_FILE, await renderOpenApiTypes(answer.json()));
    process.stdout.write(`wrote ${OPENAPI_TYPES_FILE}\n`);
  } finally {
    await app.close();
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
