import { ratioScenario } from './load.js';
import { startChildServer } from './servers.js';
import type { ScenarioResult } from './types.js';

/** Authenticated GET /api/v1/health through the whole pipeline vs a bare node:http JSON answer. */
export function httpScenario(): Promise<ScenarioResult> {
  return ratioScenario({
    scenario: 'http: authenticated GET /api/v1/health vs bare node:http',
    label: 'agentd',
    minRatio: 0.85,
    subject: () => startChildServer('agentd'),
    baseline: () => startChildServer('bare'),
    requests: (agentd, bare) => [
      { url: `${agentd.url}/api/v1/health`, headers: { authorization: `Bearer ${agentd.apiKey}` } },
      { url: `${bare.url}/` },
    ],
  });
}
