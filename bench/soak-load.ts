import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** What the load has done so far: requests answered as expected, and the ones that were not. */
export interface LoadTally {
  requests: number;
  failures: number;
  /** The first few failures, for the report (method, path, status or error). */
  examples: string[];
}

export interface SoakTarget {
  url: string;
  apiKey: string;
  webhookUrl: string;
  webhookSecret: string;
}

const MAX_EXAMPLES = 10;
const READ_PATHS = [
  '/api/v1/health', '/api/v1/status', '/api/v1/sessions?limit=20', '/api/v1/costs/summary', '/api/v1/audit?limit=20',
  '/api/v1/providers', '/api/v1/tools', '/metrics',
];
const SEARCH_WORDS = ['invoice', '391', 'time', 'paid', 'tokyo'];
const RUN_MESSAGES = ['what is 17*23?', 'what time is it in Tokyo?', 'remember that invoice 42 is paid', 'search memory for invoice'];
const WEBHOOK_SENDERS = 5;
/**
 * Runs go to a few API sessions, as a client's conversations do. A new session per run would fill
 * the session store towards its bound (10,000 sessions) for hours, and that growth, though bounded,
 * would hide a leak or be taken for one.
 */
const RUN_SESSIONS = 4;
const VIEWERS_PER_RUN = 2;

/**
 * The soak's mixed load, each kind in its own loop until `signal` aborts: API reads, memory
 * searches, background runs each followed by SSE viewers reading the stream to its end, and signed
 * webhook posts (which become runs too). Paced with short pauses: the point is hours of ordinary
 * traffic, not saturation.
 */
export function runMixedLoad(target: SoakTarget, signal: AbortSignal): { tally: LoadTally; done: Promise<void> } {
  const tally: LoadTally = { requests: 0, failures: 0, examples: [] };
  const auth = { authorization: `Bearer ${target.apiKey}` };
  const call = async (what: string, send: () => Promise<Response>, ok: (status: number) => boolean = (s) => s >= 200 && s < 300): Promise<Response | null> => {
    try {
      const response = await send();
      // The body is read whole, as a client would (and an SSE stream to its end).
      const body = await response.text();
      tally.requests++;
      if (!ok(response.status)) fail(`${what}: ${response.status} ${body.slice(0, 200)}`);
      return response;
    } catch (error) {
      if (signal.aborted) return null;
      tally.requests++;
      fail(`${what}: ${(error as Error).message}`);
      return null;
    }
  };
  const fail = (example: string) => {
    tally.failures++;
    if (tally.examples.length < MAX_EXAMPLES) tally.examples.push(example);
  };
  const loop = async (pauseMs: number, step: (i: number) => Promise<unknown>) => {
    for (let i = 0; !signal.aborted; i++) {
      await step(i);
      await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
    }
  };

  const reads = loop(10, (i) => {
    const path = READ_PATHS[i % READ_PATHS.length]!;
    return call(`GET ${path}`, () => fetch(`${target.url}${path}`, { headers: auth }));
  });
  const searches = loop(50, (i) => {
    const path = `/api/v1/memory/search?q=${SEARCH_WORDS[i % SEARCH_WORDS.length]}&limit=10`;
    return call(`GET ${path}`, () => fetch(`${target.url}${path}`, { headers: auth }));
  });
  const sessions: (string | undefined)[] = Array.from({ length: RUN_SESSIONS }, () => undefined);
  const runs = loop(200, async (i) => {
    const slot = i % RUN_SESSIONS;
    const body = { message: RUN_MESSAGES[i % RUN_MESSAGES.length], ...(sessions[slot] ? { session_id: sessions[slot] } : {}) };
    const started = await fetch(`${target.url}/api/v1/runs`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body),
    }).catch((error: Error) => error);
    tally.requests++;
    if (started instanceof Error || started.status !== 202) {
      if (!signal.aborted) fail(`POST /api/v1/runs: ${started instanceof Error ? started.message : started.status}`);
      return;
    }
    const { data } = (await started.json()) as { data: { run_id: string; session_id: string } };
    sessions[slot] = data.session_id;
    const events = `/api/v1/runs/${data.run_id}/events`;
    // 204: the run had already ended and been seen; EventSource stops there too.
    await Promise.all(Array.from({ length: VIEWERS_PER_RUN }, () => call(`GET ${events}`, () => fetch(`${target.url}${events}`, { headers: auth }))));
  });
  const webhook = loop(250, (i) => {
    const body = JSON.stringify({ prompt: RUN_MESSAGES[i % RUN_MESSAGES.length], sender: `soak-${i % WEBHOOK_SENDERS}` });
    const signature = `sha256=${createHmac('sha256', target.webhookSecret).update(body).digest('hex')}`;
    return call('POST webhook', () => fetch(target.webhookUrl, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': signature }, body,
    }), (status) => status === 202);
  });
  return { tally, done: Promise.all([reads, searches, runs, webhook]).then(() => undefined) };
}
