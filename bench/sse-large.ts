import { Agent } from 'node:http';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { client, round, startUpstream, waitFor, type Upstream } from './agent-support.js';
import { startChildServer, type ChildServer } from './servers.js';
import type { ScenarioResult } from './types.js';

/**
 * A 16 MiB answer on the run event stream, the server in a child process:
 *  (a) handed to 1,000 viewers, each leaving as soon as its first bytes arrive: the longest the
 *      server's event loop was blocked while it handed the answer over (from the moment the first
 *      viewer had its first bytes), in wall time and in CPU time the server used within that block.
 *      The goal is on the CPU time: on a shared machine a wall-time block includes time the server
 *      was not running at all (idle_max_block_ms shows how much). Before the first viewer's bytes,
 *      the answer itself is processed (redacted, stored): max_block_until_first_viewer_ms. GET
 *      /api/v1/health is asked every 10 ms throughout: health_max_ms;
 *  (b) read through by 100 viewers: the same figures while the server also writes 1.6 GB out.
 *      A thousand readers on one machine would need more socket buffer memory than the kernel
 *      allows all TCP sockets together (net.ipv4.tcp_mem), and the kernel's own work under that
 *      pressure would be what is measured;
 *  (c) 40 viewers that never read it: the memory the server holds (after a full GC) while they hold
 *      it, against the same answer read by one viewer alone, and against a copy per viewer. Held is
 *      what the process's objects hold: the JavaScript heap in use plus the memory bound to it
 *      outside the heap (`external`: every Buffer among it, so a frame copied per viewer would show
 *      as 640 MB). RSS is shown too, but not judged: memory the allocator freed without returning
 *      it to the system moves RSS by tens of MB either way between two identical measurements.
 */
export interface LargeAnswerBenchOptions {
  handedViewers?: number;
  readingViewers?: number;
  stalledViewers?: number;
  answerBytes?: number;
}

const MiB = 1024 * 1024;
const MARK_START = Buffer.from('event: run.start');
const MARK_ANSWER = Buffer.from('event: run.complete');
/** The last chunk of a chunked response: the server ended the stream. */
const MARK_END = Buffer.from('0\r\n\r\n');

export async function largeAnswerScenarios(options: LargeAnswerBenchOptions = {}): Promise<ScenarioResult[]> {
  const bytes = options.answerBytes ?? 16 * MiB;
  return [
    await fanOut(options.handedViewers ?? 1000, bytes, false),
    await fanOut(options.readingViewers ?? 100, bytes, true),
    await stalledViewers(options.stalledViewers ?? 40, bytes),
  ];
}

async function fanOut(count: number, bytes: number, readThrough: boolean): Promise<ScenarioResult> {
  const agentd = await startAgentd(bytes);
  try {
    const viewers = await openViewers(agentd.server, await agentd.startRun(), count, readThrough);
    const health = healthProbe(agentd.server);
    // The longest block of a second with nothing to do but the viewers' pings and the probe: the
    // machine's own noise (other processes taking the CPU), to read the figures below against.
    await agentd.server.loopMax!();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleMax = await agentd.server.loopMax!();
    const released = performance.now();
    agentd.upstream.answerNow();
    const first = await Promise.race(viewers.map((v) => v.answerAt));
    const untilFirstMax = await agentd.server.loopMax!();
    const starts = await Promise.all(viewers.map((v) => v.answerAt));
    const received = await Promise.all(viewers.map((v) => v.done));
    const fanOutMax = await agentd.server.loopMax!();
    const finished = performance.now();
    const healthMaxMs = await health.stop();
    const complete = received.filter((n) => n > bytes).length;
    return {
      scenario: `sse: a ${bytes / MiB} MiB answer ${readThrough ? 'read through by' : 'handed to'} ${count} viewers`,
      figures: {
        viewers: count,
        ...(readThrough ? { complete, all_read_ms: round(finished - first) } : {}),
        idle_max_block_ms: round(idleMax.wallMs),
        answer_to_first_viewer_ms: round(first - released),
        max_block_until_first_viewer_ms: round(untilFirstMax.wallMs),
        fan_out_ms: round(Math.max(...starts) - first),
        max_block_fan_out_ms: round(fanOutMax.wallMs),
        max_block_fan_out_cpu_ms: round(fanOutMax.cpuMs),
        health_max_ms: round(healthMaxMs),
      },
      goal: `${readThrough ? 'every viewer gets the whole answer; ' : ''}max_block_fan_out_cpu_ms <= 50`,
      met: (!readThrough || complete === count) && fanOutMax.cpuMs <= 50,
    };
  } finally {
    await agentd.close();
  }
}

async function stalledViewers(count: number, bytes: number): Promise<ScenarioResult> {
  const agentd = await startAgentd(bytes);
  /** Memory once one viewer has read an answer that `stalled` viewers that do not read were handed too. */
  const memoryWith = async (stalled: number): Promise<HeldMemory> => {
    const runId = await agentd.startRun();
    const viewers = await openViewers(agentd.server, runId, stalled, false);
    for (const viewer of viewers) viewer.pause();
    // Attached last, so handed the answer last: once it has read it, every stalled viewer has it.
    const [control] = await openViewers(agentd.server, runId, 1, true);
    agentd.upstream.answerNow();
    await control!.done;
    const memory = await heldMemory(agentd.server);
    for (const viewer of viewers) viewer.destroy();
    return memory;
  };
  try {
    // A first answer warms the heap and the allocator up to what processing one answer takes.
    await memoryWith(0);
    const alone = await memoryWith(0);
    const holding = await memoryWith(count);
    const growthMb = (holding.held - alone.held) / MiB;
    return {
      scenario: `sse: a ${bytes / MiB} MiB answer to ${count} viewers that never read`,
      figures: {
        viewers: count,
        held_one_reader_mb: round(alone.held / MiB),
        held_with_stalled_mb: round(holding.held / MiB),
        held_growth_mb: round(growthMb),
        rss_one_reader_mb: round(alone.rss / MiB),
        rss_with_stalled_mb: round(holding.rss / MiB),
        copy_per_viewer_would_be_mb: (count * bytes) / MiB,
      },
      goal: `held memory growth < 2 copies of the answer (${(2 * bytes) / MiB} MB), whatever the number of viewers`,
      met: growthMb < (2 * bytes) / MiB,
    };
  } finally {
    await agentd.close();
  }
}

interface HeldMemory {
  /** heapUsed + external after a full GC, in bytes. */
  held: number;
  rss: number;
}

/**
 * The least of three samples, each after a full GC: memory a collection frees is given back to
 * `external` only once the finalizers of the objects it collected have run, after the collection.
 */
async function heldMemory(server: ChildServer): Promise<HeldMemory> {
  if (!server.sample) throw new Error('bench: the server child cannot report its memory');
  let least: HeldMemory = { held: Infinity, rss: Infinity };
  for (let i = 0; i < 3; i++) {
    const { heapUsed, external, rss } = await server.sample();
    least = { held: Math.min(least.held, heapUsed + external), rss: Math.min(least.rss, rss) };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return least;
}

/** The app in a child process; each run it starts is held until `upstream.answerNow()`, which answers `bytes`. */
async function startAgentd(bytes: number): Promise<{ server: ChildServer; upstream: Upstream; startRun(): Promise<string>; close(): Promise<void> }> {
  const upstream = await startUpstream({ text: 'a'.repeat(bytes) });
  const server = await startChildServer('agentd', {
    env: { OPENAI_API_KEY: 'sk-bench-0123456789abcdefghijklmnop' },
    config: {
      providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: `${upstream.url}/v1` } },
      network: { allowed_hosts: [upstream.host] },
    },
  });
  const api = client(server, new Agent({ keepAlive: false }));
  return {
    server, upstream,
    startRun: async () => {
      const runId = (await api.json('POST', '/api/v1/runs', { message: 'write a lot' })).data.run_id as string;
      await waitFor(() => upstream.waiting >= 1);
      return runId;
    },
    close: async () => {
      await server.close();
      await upstream.close();
    },
  };
}

interface RawViewer {
  /** When the answer's frame began to arrive (performance.now()). */
  answerAt: Promise<number>;
  /** Bytes received, once the server has ended the stream (or, if not reading through, the answer began). */
  done: Promise<number>;
  pause(): void;
  destroy(): void;
}

/**
 * Opens `count` viewers, a hundred at a time (the listen backlog), each attached once it has
 * run.start; unless `readThrough`, each leaves as soon as the answer begins to arrive.
 */
async function openViewers(server: ChildServer, runId: string, count: number, readThrough: boolean): Promise<RawViewer[]> {
  const viewers: RawViewer[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: Math.min(100, count - i) }, () => rawViewer(server, `/api/v1/runs/${runId}/events`, readThrough));
    await Promise.all(batch.map((b) => b.started));
    viewers.push(...batch.map((b) => b.viewer));
  }
  return viewers;
}

/**
 * One viewer on a raw socket that counts bytes instead of keeping them (a thousand 16 MiB bodies
 * would not fit in this process), looking only for the markers it reports.
 */
function rawViewer(server: ChildServer, path: string, readThrough: boolean): { started: Promise<void>; viewer: RawViewer } {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${server.apiKey}\r\n\r\n`);
  let markStarted!: () => void;
  let markAnswer!: (at: number) => void;
  let markDone!: (bytes: number) => void;
  let fail!: (error: Error) => void;
  const failed = new Promise<never>((_resolve, reject) => (fail = reject));
  // Awaited later, if at all (a stalled viewer's `done` never is): not an unhandled rejection.
  failed.catch(() => {});
  const started = Promise.race([new Promise<void>((resolve) => (markStarted = resolve)), failed]);
  const answerAt = Promise.race([new Promise<number>((resolve) => (markAnswer = resolve)), failed]);
  const done = Promise.race([new Promise<number>((resolve) => (markDone = resolve)), failed]);
  let received = 0;
  socket.on('error', (error) => fail(new Error(`viewer: ${error.message} after ${received} bytes`)));
  let seenStart = false;
  let seenAnswer = false;
  // The end of the previous chunk, so that a marker split between two chunks is still found.
  let carry = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    // Searched whole only until the answer begins; after that only the end is looked for.
    const window = Buffer.concat([carry, seenAnswer ? chunk.subarray(-MARK_END.length) : chunk]);
    if (!seenStart && window.includes(MARK_START)) {
      seenStart = true;
      markStarted();
    }
    if (!seenAnswer && window.includes(MARK_ANSWER)) {
      seenAnswer = true;
      markAnswer(performance.now());
    }
    if (seenAnswer && (!readThrough || window.subarray(-MARK_END.length).equals(MARK_END))) {
      socket.destroy();
      markDone(received);
    }
    carry = Buffer.from(window.subarray(-MARK_ANSWER.length));
  });
  return { started, viewer: { answerAt, done, pause: () => socket.pause(), destroy: () => socket.destroy() } };
}

/**
 * GET /api/v1/health one after another, every 10 ms, each on a new connection (a kept-alive one
 * may be closed by the server just as it is reused); `stop` gives the longest one in ms.
 */
function healthProbe(server: ChildServer): { stop(): Promise<number> } {
  const agent = new Agent({ keepAlive: false });
  const api = client(server, agent);
  let running = true;
  let max = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await api.text('GET', '/api/v1/health');
      max = Math.max(max, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  // A failure is reported by `stop`, not as an unhandled rejection meanwhile.
  loop.catch(() => {});
  return {
    stop: async () => {
      running = false;
      await loop;
      return max;
    },
  };
}
