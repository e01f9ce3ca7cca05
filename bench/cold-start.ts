import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { processCpuMs } from './machine-cpu.js';
import { median } from './stats.js';
import type { ScenarioResult } from './types.js';

/**
 * Cold start: from spawning `agentd serve` (the installed entry point, a new Node process) to its
 * "agentd listening on" line (printed once the whole service is ready, after the REST API's own
 * "listening" log line), on a home that already holds its config and migrated database, as every
 * start after the first does. The baseline is a new Node process starting a bare node:http
 * server, so the figure minus the baseline is agentd's own start-up work. Medians of several starts.
 */
const STARTS = 7;
const GOAL_MS = 300;
const AGENTD_BIN = fileURLToPath(new URL('../../bin/agentd.js', import.meta.url));
const BARE_SERVER = `require('node:http').createServer((q, s) => s.end()).listen(0, '127.0.0.1', function () {
  console.log('listening on ' + this.address().port);
});`;

export async function coldStartScenario(): Promise<ScenarioResult> {
  const home = mkdtempSync(join(tmpdir(), 'agentd-bench-cold-'));
  const env = { ...process.env, AGENTD_HOME: home };
  const agentd = ['node', [AGENTD_BIN, 'serve', '--port', '0'], /^agentd listening on /m] as const;
  const bare = ['node', ['-e', BARE_SERVER], /^listening on /m] as const;
  try {
    await timeToListening(...agentd, env); // the first start writes the config and migrates the database
    const agentdStarts: Start[] = [];
    const bareStarts: Start[] = [];
    for (let i = 0; i < STARTS; i++) {
      agentdStarts.push(await timeToListening(...agentd, env));
      bareStarts.push(await timeToListening(...bare, env));
    }
    const agentdMs = agentdStarts.map((s) => s.wallMs);
    const [a, b] = [median(agentdMs), median(bareStarts.map((s) => s.wallMs))];
    return {
      scenario: `cold start: spawn → listening, median of ${STARTS} (configured home, SQLite)`,
      figures: {
        agentd_ms: round(a), bare_node_http_ms: round(b), agentd_own_ms: round(a - b), agentd_max_ms: round(Math.max(...agentdMs)),
        // CPU time until listening: what the start costs, whatever else the machine is doing.
        agentd_cpu_ms: median(agentdStarts.map((s) => s.cpuMs)), bare_cpu_ms: median(bareStarts.map((s) => s.cpuMs)),
      },
      goal: `agentd_ms <= ${GOAL_MS}`,
      met: a <= GOAL_MS,
      headline: { agentd: `${round(a)} ms`, baseline: `${round(b)} ms (node + bare node:http)`, ratio: round(a / b) },
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

interface Start {
  wallMs: number;
  cpuMs: number;
}

/**
 * Spawns the command, resolves with the wall time until it printed its ready line and the CPU time
 * it had used by then, then stops it.
 */
function timeToListening(command: string, args: readonly string[], ready: RegExp, env: NodeJS.ProcessEnv): Promise<Start> {
  const started = performance.now();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise<Start>((resolve, reject) => {
    let output = '';
    const early = (code: number | null) => reject(new Error(`${args[0]} exited with ${code} before listening: ${output.slice(0, 500)}`));
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!ready.test(output)) return;
      const elapsed = { wallMs: performance.now() - started, cpuMs: processCpuMs(child.pid!) };
      child.stdout.off('data', onData);
      child.stderr.off('data', onData);
      child.off('exit', early);
      child.once('exit', () => resolve(elapsed));
      child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', early);
  });
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
