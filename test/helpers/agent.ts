import type { TestApp } from './app.js';

/** Helpers shared by the agent, runs and SSE integration tests. */

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export async function postJson(t: TestApp, path: string, body: unknown): Promise<Response> {
  return t.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Starts a run and returns its 202 record. */
export async function startRun(t: TestApp, body: Record<string, unknown>): Promise<any> {
  const response = await postJson(t, '/api/v1/runs', body);
  if (response.status !== 202) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
  return (await json(response)).data;
}

/** Reads the run's event stream to its end (a finished or finishing run closes it). */
export async function readEvents(t: TestApp, runId: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; events: SseEvent[] }> {
  const response = await t.request(`/api/v1/runs/${runId}/events`, { headers });
  const text = await response.text();
  return { status: response.status, text, events: parseSse(text) };
}

/** Waits for the run's terminal event through the stream, then returns the stored record. */
export async function finishedRun(t: TestApp, runId: string): Promise<any> {
  await readEvents(t, runId);
  return (await json(await t.request(`/api/v1/runs/${runId}`))).data;
}

/** Parses an SSE body into events (comments and the retry line are skipped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields[name] = fields[name] === undefined ? value : `${fields[name]}\n${value}`;
    }
    if (fields.data !== undefined) events.push({ id: fields.id, event: fields.event, data: fields.data });
  }
  return events;
}

/** Polls `check` until it returns a value (not undefined/false), at most `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000): Promise<Exclude<T, undefined | false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
