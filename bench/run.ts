import { agentScenarios } from './agent.js';
import { auditScenario } from './audit.js';
import { coldStartScenario } from './cold-start.js';
import { discordScenario } from './discord.js';
import { gatewayScenario } from './gateway.js';
import { httpScenario } from './http.js';
import { memoryScenario } from './memory.js';
import { machineInfo, writeReport } from './report.js';
import { runsListScenario } from './runs-list.js';
import { scaleScenarios } from './scale.js';
import { largeAnswerScenarios } from './sse-large.js';
import { streamingScenarios } from './streaming.js';
import { durableWebhookScenario, webhookScenario } from './webhook.js';
import type { Scenario, ScenarioResult } from './types.js';

/**
 * `npm run bench [-- name …] [--out FILE]`: runs the named scenarios (all by default), prints each
 * one's figures, its goal and whether it was met, and writes the report (bench/RESULTS.md unless
 * --out names another file). Every ratio compares against a baseline started in the same run,
 * because absolute numbers on a shared machine are noise.
 */
const DEFAULT_REPORT = 'bench/RESULTS.md';
const SCENARIOS: Record<string, Scenario> = {
  http: httpScenario,
  'cold-start': coldStartScenario,
  gateway: gatewayScenario,
  memory: () => memoryScenario(),
  audit: () => auditScenario(),
  'runs-list': () => runsListScenario({ postgres: !process.env.BENCH_SQLITE_ONLY }),
  agent: () => agentScenarios(),
  'sse-large': () => largeAnswerScenarios(),
  streaming: () => streamingScenarios(),
  webhook: webhookScenario,
  'webhook-durable': durableWebhookScenario,
  discord: discordScenario,
  scale: () => scaleScenarios(scaleSizes()),
};

/** `BENCH_SCALE_QUICK=1`: small sizes, to prove the scale bench works on a busy machine (the figures then mean little). */
function scaleSizes() {
  return process.env.BENCH_SCALE_QUICK ? { runSeconds: 2, runClients: 8, healthSeconds: 2, deliverySamples: 40, auditSeconds: 2 } : {};
}

async function main(): Promise<void> {
  const { wanted, out } = parseArguments(process.argv.slice(2));
  const names = wanted.length > 0 ? wanted : Object.keys(SCENARIOS);
  const unknown = names.filter((n) => !SCENARIOS[n]);
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  const machine = machineInfo();
  const startedAt = new Date();
  const results: ScenarioResult[] = [];
  for (const name of names) {
    process.stdout.write(`running ${name} …\n`);
    const outcome = await SCENARIOS[name]!().catch((error: unknown): ScenarioResult => ({
      // One scenario that fails to run is reported as such; the others still run and the report is written.
      scenario: `${name}: failed to run`, figures: { error: (error as Error).message }, goal: 'runs to the end', met: false,
    }));
    for (const result of Array.isArray(outcome) ? outcome : [outcome]) {
      results.push(result);
      print(result);
    }
  }
  const missed = results.filter((r) => !r.met).length;
  process.stdout.write(`\n${results.length - missed}/${results.length} goals met\n`);
  writeReport(out, machine, results, startedAt);
  process.stdout.write(`report written to ${out}\n`);
}

function parseArguments(args: string[]): { wanted: string[]; out: string } {
  const at = args.indexOf('--out');
  if (at === -1) return { wanted: args, out: DEFAULT_REPORT };
  const out = args[at + 1];
  if (!out) throw new Error('--out needs a file name');
  return { wanted: args.filter((_, i) => i !== at && i !== at + 1), out };
}

function print(result: ScenarioResult): void {
  const figures = Object.entries(result.figures).map(([k, v]) => `${k}=${v}`).join('  ');
  process.stdout.write(`\n${result.scenario}\n  ${figures}\n  goal: ${result.goal} → ${result.met ? 'met' : 'NOT met'}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
