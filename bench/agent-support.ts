import { createServer, request, type Agent, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startChildServer, type ChildServer } from './servers.js';

/** Pieces shared by the agent benchmarks: the API client, an OpenAI-compatible upstream, probes. */

export async function probe(server: ChildServer): Promise<{ rss: number; cpuMicros: number }> {
  if (!server.probe) throw new Error('bench: the server child cannot report its RSS and CPU time');
  return server.probe();
}

export function round(value: number): number {
  return Number(value.toFixed(2));
}

export async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('bench: condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function client(server: ChildServer, agent: Agent) {
  const send = (method: string, path: string, body?: unknown) =>
    new Promise<string>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(`${server.url}${path}`, {
        method, agent,
        headers: { authorization: `Bearer ${server.apiKey}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => (res.statusCode! < 300 ? resolve(text) : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  return {
    text: send,
    json: async (method: string, path: string, body?: unknown) => JSON.parse(await send(method, path, body)),
  };
}

export interface RunsMeasure {
  /** Latency of each measured run (POST to terminal frame), ms. */
  latencies: number[];
  elapsedS: number;
  /** Streams that ended without run.complete. */
  failures: number;
}

/**
 * Offline runs end to end — POST /runs, then the run's event stream read to its end — by
 * `clients` concurrent clients, each on its own session (one run in flight each), the clients
 * spread round-robin over `servers` (replicas of one service). One second of warm-up, then
 * `seconds` measured; `onMeasureStart` runs between the two.
 */
export async function measureRuns(
  servers: ChildServer[], agent: Agent, clients: number, seconds: number, onMeasureStart?: () => Promise<void>,
): Promise<RunsMeasure> {
  const apis = Array.from({ length: clients }, (_, i) => client(servers[i % servers.length]!, agent));
  const sessions = await Promise.all(apis.map(async (api) => (await api.json('POST', '/api/v1/sessions', {})).data.id as string));
  const latencies: number[] = [];
  let failures = 0;
  const worker = async (i: number, until: number) => {
    const api = apis[i]!;
    while (performance.now() < until) {
      const started = performance.now();
      const run = (await api.json('POST', '/api/v1/runs', { message: 'what is 17*23?', session_id: sessions[i] })).data;
      const stream = await api.text('GET', `/api/v1/runs/${run.run_id}/events`);
      if (!stream.includes('event: run.complete')) failures++;
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(apis.map((_, i) => worker(i, performance.now() + 1000)));
  latencies.length = 0;
  failures = 0;
  await onMeasureStart?.();
  const start = performance.now();
  await Promise.all(apis.map((_, i) => worker(i, start + seconds * 1000)));
  return { latencies, elapsedS: (performance.now() - start) / 1000, failures };
}

export interface Upstream {
  url: string;
  host: string;
  /** Chat completions received and not answered yet. */
  waiting: number;
  answered: number;
  /** When the first token of each streamed answer was written (performance.now()), in order. */
  firstTokenAt: number[];
  /** Answers every waiting request now. */
  answerNow(): void;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible upstream that answers every chat completion with `text` (default "Done.")
 * after `answerAfterMs`, or only when `answerNow()` is called when that is omitted. A request for
 * a stream is answered in the SSE format: the text in one chunk, or with `tokens` that many
 * one-word chunks at `tokensPerSecond` (the time the first is written is in `firstTokenAt`).
 */
export async function startUpstream(options: { answerAfterMs?: number; text?: string; tokens?: number; tokensPerSecond?: number } = {}): Promise<Upstream> {
  const state = { waiting: 0, answered: 0, firstTokenAt: [] as number[] };
  const timers = new Set<NodeJS.Timeout>();
  const held = new Set<() => void>();
  const content = options.text ?? 'Done.';
  const server: Server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', () => {
      state.waiting++;
      const streamed = /"stream"\s*:\s*true/.test(Buffer.concat(body).toString('utf8'));
      const answer = () => {
        held.delete(answer);
        state.waiting--;
        state.answered++;
        if (streamed) return void streamAnswer(res, state, options.tokens ? { tokens: options.tokens, perSecond: options.tokensPerSecond ?? 50 } : content);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          id: `chatcmpl-${state.answered}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: 'gpt-4.1-mini',
          choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
        }));
      };
      held.add(answer);
      if (options.answerAfterMs === undefined) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, options.answerAfterMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    get waiting() {
      return state.waiting;
    },
    get answered() {
      return state.answered;
    },
    get firstTokenAt() {
      return state.firstTokenAt;
    },
    answerNow: () => {
      for (const answer of [...held]) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Chat Completions stream: `content` in one chunk, or `tokens` one-word chunks at a pace; then the usage and [DONE]. */
async function streamAnswer(res: ServerResponse, state: { firstTokenAt: number[] }, answer: string | { tokens: number; perSecond: number }): Promise<void> {
  const id = `chatcmpl-${state.firstTokenAt.length}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: unknown, finish: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  chunk({ role: 'assistant', content: '' });
  const pieces = typeof answer === 'string' ? [answer] : Array.from({ length: answer.tokens }, (_, i) => `word${i} `);
  const gapMs = typeof answer === 'string' ? 0 : 1000 / answer.perSecond;
  // As a hosted model's stream: the head and the role chunk first, then a token per interval.
  const start = performance.now();
  for (const [i, piece] of pieces.entries()) {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + (i + 1) * gapMs - performance.now())));
    if (res.destroyed) return;
    if (i === 0) state.firstTokenAt.push(performance.now());
    chunk({ content: piece });
  }
  chunk({}, 'stop');
  res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: 'gpt-4.1-mini', choices: [], usage: { prompt_tokens: 12, completion_tokens: pieces.length, total_tokens: 12 + pieces.length } })}\n\n`);
  res.end('data: [DONE]\n\n');
}

/** agentd in a child process with `upstream` as its OpenAI provider (and the only host it may reach). */
export function startAgentdOn(upstream: Upstream): Promise<ChildServer> {
  return startChildServer('agentd', {
    env: { OPENAI_API_KEY: 'sk-bench-0123456789abcdefghijklmnop' },
    config: {
      providers: { default: 'openai', openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: `${upstream.url}/v1` } },
      network: { allowed_hosts: [upstream.host] },
    },
  });
}
