import { request, Agent, type IncomingMessage } from 'node:http';
import { client, startAgentdOn, measureRuns, probe, round, startUpstream, waitFor } from './agent-support.js';
import { startChildServer, type ChildServer } from './servers.js';
import type { ScenarioResult } from './types.js';

/**
 * The agent runtime under load, the server in a child process:
 *  (a) offline-provider runs end to end — POST /runs, then the run's event stream read to its
 *      terminal event — by concurrent clients, each on its own session (one run in flight each);
 *  (b) 1,000 SSE viewers on runs held in flight by an OpenAI-compatible upstream that answers after
 *      5 s: every viewer must get its terminal event, and the server's RSS growth per attached
 *      viewer (after a full GC, before vs with the viewers) must stay within 50 KB.
 */
export interface AgentBenchOptions {
  runSeconds?: number;
  runClients?: number;
  viewers?: number;
  viewersPerRun?: number;
  upstreamDelayMs?: number;
}

const TERMINAL = /\nevent: run\.(complete|error|cancelled)\n/;

export async function agentScenarios(options: AgentBenchOptions = {}): Promise<ScenarioResult[]> {
  return [await offlineRuns(options), await sseViewers(options)];
}

async function offlineRuns(options: AgentBenchOptions): Promise<ScenarioResult> {
  const seconds = options.runSeconds ?? 5;
  const clients = options.runClients ?? 32;
  const server = await startChildServer('agentd');
  const agent = new Agent({ keepAlive: true, maxSockets: clients * 2 });
  try {
    let cpuBefore = 0;
    const { latencies, elapsedS: elapsed, failures } = await measureRuns([server], agent, clients, seconds, async () => {
      cpuBefore = (await probe(server)).cpuMicros;
    });
    const cpuSeconds = ((await probe(server)).cpuMicros - cpuBefore) / 1e6;
    const runsPerSecond = latencies.length / elapsed;
    latencies.sort((a, b) => a - b);
    return {
      scenario: `agent: offline runs end to end (POST /runs + event stream to run.complete), ${clients} concurrent clients`,
      figures: {
        runs: latencies.length,
        runs_per_s: Math.round(runsPerSecond),
        // Runs per second of server CPU: what one core sustains, independent of other load on the machine.
        runs_per_cpu_s: Math.round(latencies.length / cpuSeconds),
        p50_ms: round(latencies[Math.floor(latencies.length * 0.5)] ?? 0),
        p99_ms: round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
        failures,
      },
      goal: 'runs_per_s >= 500 with no failures',
      met: runsPerSecond >= 500 && failures === 0,
      headline: { agentd: `${Math.round(runsPerSecond)} runs/s (${failures} failed)` },
    };
  } finally {
    agent.destroy();
    await server.close();
  }
}

async function sseViewers(options: AgentBenchOptions): Promise<ScenarioResult> {
  const viewers = options.viewers ?? 1000;
  // 50 viewers on each of 20 runs: the gateway keeps at most 20 upstream connections (its pool's
  // bound, docs/gateway.md#connection-pool), so 20 runs are what can be held in flight at the upstream at once.
  const perRun = options.viewersPerRun ?? 50;
  const runs = Math.ceil(viewers / perRun);
  const upstream = await startUpstream({ answerAfterMs: options.upstreamDelayMs ?? 5000 });
  const server = await startAgentdOn(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  try {
    const api = client(server, agent);
    const runIds: string[] = [];
    for (let i = 0; i < runs; i++) runIds.push((await api.json('POST', '/api/v1/runs', { message: `question ${i}` })).data.run_id);
    await waitFor(() => upstream.waiting >= runs);
    const before = (await probe(server)).rss;

    // Each viewer is its own connection, as each browser tab's EventSource is.
    const streams = runIds.flatMap((id) => Array.from({ length: perRun }, () => openStream(server, `/api/v1/runs/${id}/events`)));
    await Promise.all(streams.map((s) => s.started));
    const attachedInFlight = upstream.answered === 0;
    const withViewers = (await probe(server)).rss;
    const results = await Promise.all(streams.map((s) => s.done));
    const terminal = results.filter((body) => TERMINAL.test(body)).length;
    const perViewerKb = (withViewers - before) / streams.length / 1024;
    return {
      scenario: `agent: ${streams.length} SSE viewers on ${runs} in-flight runs (upstream answers after ${(options.upstreamDelayMs ?? 5000) / 1000} s)`,
      figures: {
        viewers: streams.length,
        terminal_received: terminal,
        rss_before_mb: round(before / 1048576),
        rss_with_viewers_mb: round(withViewers / 1048576),
        rss_per_viewer_kb: round(perViewerKb),
        attached_while_in_flight: String(attachedInFlight),
      },
      goal: 'every viewer gets its terminal event; RSS per viewer <= 50 KB',
      met: terminal === streams.length && perViewerKb <= 50 && attachedInFlight,
      headline: { agentd: `${round(perViewerKb)} KB/viewer, ${terminal}/${streams.length} terminal` },
    };
  } finally {
    agent.destroy();
    await server.close();
    await upstream.close();
  }
}

/** One SSE viewer on its own socket: `started` once run.start arrived, `done` with the whole body. */
function openStream(server: ChildServer, path: string): { started: Promise<void>; done: Promise<string> } {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const done = new Promise<string>((resolve, reject) => {
    const req = request(`${server.url}${path}`, { agent: false, headers: { authorization: `Bearer ${server.apiKey}` } }, (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.includes('event: run.start')) markStarted();
      });
      res.on('end', () => {
        markStarted();
        resolve(body);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  return { started, done };
}

