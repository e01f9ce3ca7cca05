import { ratioScenario } from './load.js';
import { startChildServer, type ChildServer } from './servers.js';
import type { ScenarioResult } from './types.js';

const GOAL = 0.85;

/**
 * Authenticated GET /api/v1/health through the whole pipeline vs a bare node:http JSON answer (the
 * goal), then against bare node:http sending agentd's very answer (its headers, a fresh request id,
 * its body) with none of its checks: the floor, what the required answer costs on this machine.
 */
export async function httpScenario(): Promise<ScenarioResult> {
  const health = (agentd: { url: string; apiKey: string }) =>
    ({ url: `${agentd.url}/api/v1/health`, headers: { authorization: `Bearer ${agentd.apiKey}` } });
  const result = await ratioScenario({
    scenario: 'http: authenticated GET /api/v1/health vs bare node:http',
    label: 'agentd',
    minRatio: GOAL,
    subject: () => startChildServer('agentd'),
    baseline: () => startChildServer('bare'),
    requests: (agentd, bare) => [health(agentd), { url: `${bare.url}/` }],
  });
  let agentd: ChildServer | undefined;
  const floor = await ratioScenario({
    scenario: 'floor',
    label: 'agentd',
    minRatio: GOAL,
    subject: async () => (agentd = await startChildServer('agentd')),
    // Started after the subject (ratioScenario's order): it sends the body agentd sent.
    baseline: async () => {
      const { url, headers } = health(agentd!);
      return startChildServer('bare-same-answer', { body: await (await fetch(url, { headers })).text() });
    },
    requests: (subject, same) => [health(subject), { url: `${same.url}/` }],
  });
  const { ratio, ratio_min: min, ratio_max: max, bare_rps: rps } = floor.figures;
  const sameAnswer = { same_answer_rps: rps!, same_answer_ratio: ratio!, same_answer_ratio_min: min!, same_answer_ratio_max: max! };
  return { ...result, figures: { ...result.figures, ...sameAnswer } };
}
