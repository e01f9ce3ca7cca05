import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { client, probe, round, startAgentdOn, startUpstream, waitFor } from './agent-support.js';
import { startChildServer, type ChildServer } from './servers.js';
import { pct } from './stats.js';
import type { ScenarioResult } from './types.js';

/**
 * The answer as it is written (`include=deltas`, docs/api.md#run-event-stream), the server in a
 * child process:
 *  (a) the offline provider: from POST /runs to the first piece of text (run.text or run.delta)
 *      at a viewer that opens the stream right after the 202;
 *  (b) an OpenAI-compatible upstream streaming 500 tokens at 50 tokens/s: from the upstream
 *      writing its first token to the first run.delta at a viewer (goal: 50 ms);
 *  (c) the server's CPU time for one such run with 100 viewers on include=deltas against the same
 *      run with none (each run polled for its end the same way), beside the floor under it: bare
 *      node:http writing the same frames to as many streams.
 */
const TOKENS = 500;
const TOKENS_PER_SECOND = 50;
const OFFLINE_RUNS = 20;
const VIEWERS = 100;
const TEXT_MARK = /event: run\.(delta|text)\n/;

interface Viewer {
  /** The stream is open and the run's first event arrived: the viewer is attached. */
  attached: Promise<void>;
  /** performance.now() when the first piece of text arrived. */
  firstText: Promise<number>;
  /** The whole stream, once the server ended it. */
  done: Promise<string>;
}

/** A viewer of agentd's live text on a run: attached once the run's first event arrived. */
function openViewer(server: ChildServer, runId: string, agent: Agent): Viewer {
  const url = `${server.url}/api/v1/runs/${runId}/events?include=deltas`;
  return openStream(url, { authorization: `Bearer ${server.apiKey}` }, 'event: run.start', agent);
}

function openStream(url: string, headers: Record<string, string>, attachedMark: string, agent: Agent): Viewer {
  let gotText!: (at: number) => void;
  let gotStart!: () => void;
  const firstText = new Promise<number>((resolve) => (gotText = resolve));
  const attached = new Promise<void>((resolve) => (gotStart = resolve));
  const done = new Promise<string>((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.includes(attachedMark)) gotStart();
        if (TEXT_MARK.test(chunk)) gotText(performance.now());
      });
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  return { attached, firstText, done };
}

/**
 * The floor under the added CPU: bare node:http writing the very frames agentd's viewers got, one
 * each `intervalMs`, to as many streams, against none (each frame one shared Buffer, no work but the
 * writes). Its CPU in ms.
 */
async function bareAddedCpu(frames: string[], intervalMs: number, viewers: number, agent: Agent): Promise<number> {
  const bare = await startChildServer('bare-sse');
  try {
    const cpuOf = async (count: number) => {
      const before = (await probe(bare)).cpuMicros;
      const streams = Array.from({ length: count }, () => openStream(`${bare.url}/events`, {}, 'retry:', agent));
      await Promise.all(streams.map((s) => s.attached));
      await new Promise<void>((resolve, reject) => {
        const req = request(`${bare.url}/broadcast`, { method: 'POST', agent }, (res) => res.resume().on('end', resolve));
        req.on('error', reject);
        req.end(JSON.stringify({ frames, intervalMs }));
      });
      await (count === 0 ? sleep(frames.length * intervalMs + 200) : Promise.all(streams.map((s) => s.done)));
      return ((await probe(bare)).cpuMicros - before) / 1000;
    };
    const none = await cpuOf(0);
    return (await cpuOf(viewers)) - none;
  } finally {
    await bare.close();
  }
}

export async function streamingScenarios(): Promise<ScenarioResult[]> {
  return [await offlineFirstText(), ...(await streamedUpstream())];
}

async function offlineFirstText(): Promise<ScenarioResult> {
  const server = await startChildServer('agentd');
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  try {
    const api = client(server, agent);
    const times: number[] = [];
    for (let i = 0; i < OFFLINE_RUNS; i++) {
      const session = (await api.json('POST', '/api/v1/sessions', {})).data.id as string;
      const asked = performance.now();
      const runId = (await api.json('POST', '/api/v1/runs', { session_id: session, message: 'hello, who are you?' })).data.run_id as string;
      const viewer = openViewer(server, runId, agent);
      times.push((await viewer.firstText) - asked);
      await viewer.done;
    }
    return {
      scenario: `streaming: offline provider, POST /runs → first text at a viewer (${OFFLINE_RUNS} runs)`,
      figures: { runs: OFFLINE_RUNS, first_text_p50_ms: round(pct(times, 50)), first_text_max_ms: round(Math.max(...times)) },
      goal: 'first_text_p50_ms <= 50',
      met: pct(times, 50) <= 50,
      headline: { agentd: `p50 ${round(pct(times, 50))} ms, max ${round(Math.max(...times))} ms` },
    };
  } finally {
    agent.destroy();
    await server.close();
  }
}

async function streamedUpstream(): Promise<ScenarioResult[]> {
  const upstream = await startUpstream({ tokens: TOKENS, tokensPerSecond: TOKENS_PER_SECOND });
  const server = await startAgentdOn(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: VIEWERS * 2 });
  const api = client(server, agent);
  /** One run with `viewers` viewers on include=deltas: its end, the server's CPU time for it, what the viewers saw. */
  const measured = async (viewers: number) => {
    const cpuBefore = (await probe(server)).cpuMicros;
    const started = performance.now();
    const runId = (await api.json('POST', '/api/v1/runs', { message: 'tell me a long story' })).data.run_id as string;
    const streams = Array.from({ length: viewers }, () => openViewer(server, runId, agent));
    // The upstream answers once every viewer is attached, so each of them sees the first token's delta.
    await Promise.all(streams.map((s) => s.attached));
    await waitFor(() => upstream.waiting >= 1);
    upstream.answerNow();
    // Polled the same way with and without viewers, so the polling costs both runs alike.
    while ((await api.json('GET', `/api/v1/runs/${runId}`)).data.status !== 'complete') await sleep(200);
    const bodies = await Promise.all(streams.map((s) => s.done));
    const wallS = (performance.now() - started) / 1000;
    const cpuMs = ((await probe(server)).cpuMicros - cpuBefore) / 1000;
    const firsts = await Promise.all(streams.map((s) => s.firstText));
    return { cpuMs, wallS, bodies, firsts, firstToken: upstream.firstTokenAt.at(-1)! };
  };
  try {
    // The first run of a fresh server is cold (its stream-reading code not compiled yet); the goal is on the next.
    const cold = await measured(1);
    const one = await measured(1);
    const coldLatency = cold.firsts[0]! - cold.firstToken;
    const latency = one.firsts[0]! - one.firstToken;
    const deltaEvents = (one.bodies[0]!.match(/event: run\.delta\n/g) ?? []).length;
    const none = await measured(0);
    const many = await measured(VIEWERS);
    const added = many.cpuMs - none.cpuMs;
    const manyLatency = many.firsts.map((at) => at - many.firstToken);
    // The run's events as a viewer got them (the retry line is the head's, not the run's).
    const frames = many.bodies[0]!.split(/(?<=\n\n)/).filter((frame) => !frame.startsWith('retry:'));
    const bareAdded = await bareAddedCpu(frames, (TOKENS / TOKENS_PER_SECOND) * 1000 / frames.length, VIEWERS, agent);
    return [
      {
        scenario: `streaming: upstream writing ${TOKENS} tokens at ${TOKENS_PER_SECOND}/s, its first token → first run.delta at a viewer`,
        figures: { first_delta_ms: round(latency), first_delta_ms_first_run: round(coldLatency), delta_events: deltaEvents, tokens: TOKENS, run_s: round(one.wallS) },
        goal: 'first_delta_ms <= 50',
        met: latency <= 50,
        headline: { agentd: `${round(latency)} ms (${deltaEvents} delta events for ${TOKENS} tokens)` },
      },
      {
        scenario: `streaming: server CPU for one such run with ${VIEWERS} viewers on include=deltas vs none`,
        figures: {
          cpu_ms_no_viewers: round(none.cpuMs), cpu_ms_with_viewers: round(many.cpuMs), added_cpu_ms: round(added),
          run_s_no_viewers: round(none.wallS), run_s_with_viewers: round(many.wallS),
          first_delta_p50_ms_with_viewers: round(pct(manyLatency, 50)), first_delta_max_ms_with_viewers: round(Math.max(...manyLatency)),
          frames_per_viewer: frames.length, bare_node_http_added_cpu_ms: round(bareAdded), added_vs_bare: round(added / Math.max(bareAdded, 1)),
        },
        goal: `added CPU per viewer <= 5 ms for a ${TOKENS / TOKENS_PER_SECOND} s answer`,
        met: added / VIEWERS <= 5,
        headline: {
          agentd: `${round(added)} ms CPU added by ${VIEWERS} viewers (${round(many.cpuMs)} with, ${round(none.cpuMs)} without)`,
          baseline: `${round(bareAdded)} ms (bare node:http writing the same ${frames.length} frames to as many)`,
          ratio: round(added / Math.max(bareAdded, 1)),
        },
      },
    ];
  } finally {
    agent.destroy();
    await server.close();
    await upstream.close();
  }
}
