import { createHmac, randomUUID } from 'node:crypto';

/** Everything a client was told was accepted, to be found again after the crashes. */
export interface Acknowledged {
  /** Webhook prompts answered 202 (each unique), by sender. */
  webhook: { sender: string; prompt: string }[];
  /** Runs answered 202: id and the message sent. */
  runs: { runId: string; message: string }[];
  /** Chats answered 200: session and the message sent. */
  chats: { sessionId: string; message: string }[];
  /** Scheduled jobs answered 201: id and the task sent. */
  jobs: { jobId: string; task: string }[];
  /** Pins answered 200: the turn pinned. */
  pins: { turnId: string }[];
}

export interface Target {
  api: string;
  webhook: string;
  apiKey: string;
  secret: string;
}

let counter = 0;
/** Concurrent posts of each webhook worker. */
const WEBHOOK_BURST = 4;
/** A question the offline provider answers, made unique so it can be found in the store. */
const question = (kind: string) => `what is ${++counter}+1? ${kind}-${randomUUID().slice(0, 8)}`;

/**
 * Mixed load until `signal` aborts: webhook POSTs (some repeated with the same X-Request-Id, which
 * must not run twice), background runs and chats, job creations and pins, each from its own set of concurrent workers. A
 * write is recorded only when its 2xx arrived: a request cut off by the crash proves nothing.
 */
export async function driveLoad(target: Target, acked: Acknowledged, signal: AbortSignal): Promise<void> {
  const auth = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
  /** One message, sent twice with the same X-Request-Id; recorded when the first send got 202. */
  const postWebhook = async (sender: string) => {
    const prompt = question('webhook');
    const body = JSON.stringify({ prompt, sender });
    const signature = `sha256=${createHmac('sha256', target.secret).update(body).digest('hex')}`;
    const requestId = randomUUID();
    const client = `10.${counter % 250}.${Math.floor(counter / 250) % 250}.${1 + (counter % 7)}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await fetch(target.webhook, {
        method: 'POST', body, signal,
        headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-request-id': requestId, 'x-forwarded-for': client },
      }).catch(() => null);
      if (response?.status === 202 && attempt === 0) acked.webhook.push({ sender, prompt });
      await response?.arrayBuffer().catch(() => undefined);
    }
  };
  // Bursts of concurrent posts from one sender: several messages land in one group commit, and
  // the sender's later ones wait behind the first (claimed as it starts).
  const webhookWorker = async (sender: string) => {
    while (!signal.aborted) await Promise.all(Array.from({ length: WEBHOOK_BURST }, () => postWebhook(sender)));
  };
  /** POSTs `{message}` to `path` in a loop; `record` keeps what an answer with `status` acknowledged. */
  const apiWorker = async (path: string, status: number, record: (data: Record<string, string>, message: string) => void) => {
    while (!signal.aborted) {
      const message = question(path.slice(path.lastIndexOf('/') + 1));
      const response = await fetch(`${target.api}${path}`, { method: 'POST', headers: auth, body: JSON.stringify({ message }), signal }).catch(() => null);
      if (response?.status !== status) continue;
      const body = await response.json().catch(() => null) as { data: Record<string, string> } | null;
      if (body) record(body.data, message);
    }
  };
  /** Creates jobs that never fire during the test (daily at 03:00 UTC is far from any test's minutes). */
  const jobWorker = async () => {
    while (!signal.aborted) {
      const task = question('job');
      const response = await fetch(`${target.api}/api/v1/scheduler/jobs`, {
        method: 'POST', headers: auth, signal, body: JSON.stringify({ name: task.slice(-13), schedule: 'daily at 03:00', task }),
      }).catch(() => null);
      const body = response?.status === 201 ? await response.json().catch(() => null) as { data: { id: string } } | null : null;
      if (body) acked.jobs.push({ jobId: body.data.id, task });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  /** Pins the turns of chats it started itself (their ids come from the session's history). */
  const pinWorker = async () => {
    while (!signal.aborted) {
      const chat = await fetch(`${target.api}/api/v1/chat`, { method: 'POST', headers: auth, signal, body: JSON.stringify({ message: question('pin') }) }).catch(() => null);
      const sessionId = chat?.status === 200 ? (await chat.json().catch(() => null) as { data: { session_id: string } } | null)?.data.session_id : undefined;
      if (!sessionId) continue;
      const history = await fetch(`${target.api}/api/v1/sessions/${sessionId}/history`, { headers: auth, signal }).catch(() => null);
      const turns = history?.status === 200 ? (await history.json().catch(() => null) as { data: { turns: { id: string }[] } } | null)?.data.turns ?? [] : [];
      for (const { id } of turns) {
        const pinned = await fetch(`${target.api}/api/v1/memory/turns/${id}/pin`, { method: 'POST', headers: auth, signal, body: '{}' }).catch(() => null);
        if (pinned?.status === 200) acked.pins.push({ turnId: id });
        await pinned?.arrayBuffer().catch(() => undefined);
      }
    }
  };
  const runWorker = () => apiWorker('/api/v1/runs', 202, (data, message) => acked.runs.push({ runId: data.run_id!, message }));
  const chatWorker = () => apiWorker('/api/v1/chat', 200, (data, message) => acked.chats.push({ sessionId: data.session_id!, message }));
  await Promise.all([
    ...['alpha', 'beta', 'gamma', 'delta', 'alpha', 'beta'].map(webhookWorker),
    runWorker(), runWorker(), runWorker(),
    chatWorker(), chatWorker(),
    jobWorker(), pinWorker(),
  ]);
}
