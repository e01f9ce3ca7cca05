import { alternate } from './load.js';
import { startChildServer } from './servers.js';
import type { ScenarioResult } from './types.js';

/** Authenticated GET /api/v1/health through the whole pipeline vs a bare node:http JSON answer. */
export async function httpScenario(): Promise<ScenarioResult> {
  const agentd = await startChildServer('agentd');
  const bare = await startChildServer('bare');
  try {
    const { a, b } = await alternate(
      { url: `${agentd.url}/api/v1/health`, headers: { authorization: `Bearer ${agentd.apiKey}` } },
      { url: `${bare.url}/` },
    );
    if (a.non2xx > 0 || a.errors > 0) throw new Error(`agentd answered ${a.non2xx} non-2xx and ${a.errors} errors`);
    const ratio = a.rps / b.rps;
    return {
      scenario: 'http: authenticated GET /api/v1/health vs bare node:http',
      figures: {
        agentd_rps: Math.round(a.rps), agentd_p99_ms: a.p99Ms, bare_rps: Math.round(b.rps), bare_p99_ms: b.p99Ms,
        ratio: Number(ratio.toFixed(3)),
      },
      goal: 'ratio >= 0.80',
      met: ratio >= 0.8,
    };
  } finally {
    await Promise.all([agentd.close(), bare.close()]);
  }
}
