import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentdClient, RunStreamInterruptedError, type RunEvent } from '../src/client/index.js';

/**
 * A stand-in for agentd's run stream on 127.0.0.1, speaking its wire format, that stops before the
 * terminal event the way a restarted service or a dropped connection does.
 */
const FRAMES = [
  'id: 1\nevent: run.start\ndata: {"run_id":"run_1","session_id":"ses_1","provider":"offline"}\n\n',
  'id: 2\nevent: tool.request\ndata: {"run_id":"run_1","call_id":"c1","tool":"calculator","arguments":{"expression":"1+1"}}\n\n',
  'id: 3\nevent: tool.result\ndata: {"run_id":"run_1","call_id":"c1","tool":"calculator","is_error":false,"duration_ms":0}\n\n',
  'id: 4\nevent: run.complete\ndata: {"run_id":"run_1","response":"2","resolved_provider":"offline","tools_used":["calculator"],"cost":{"prompt_tokens":0,"completion_tokens":0,"cost_usd":0}}\n\n',
];

let server: Server;
afterEach(() => new Promise<void>((done) => server.close(() => done())));

/** Answers the events after Last-Event-ID, stopping after `stopAfter` of them (cleanly or by a reset). */
async function fakeStream(stopAfter: number, how: 'end' | 'reset'): Promise<{ url: string; lastEventIds: (string | undefined)[] }> {
  const lastEventIds: (string | undefined)[] = [];
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const after = Number(request.headers['last-event-id'] ?? 0);
    lastEventIds.push(request.headers['last-event-id'] as string | undefined);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('retry: 3000\n\n');
    const frames = FRAMES.slice(after);
    const cut = lastEventIds.length === 1;
    response.write((cut ? frames.slice(0, stopAfter) : frames).join(''), () => {
      if (!cut || how === 'end') response.end();
      else request.socket.destroy();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lastEventIds };
}

async function follow(client: AgentdClient): Promise<{ events: RunEvent[]; interruption: RunStreamInterruptedError }> {
  const events: RunEvent[] = [];
  const interruption = await (async () => {
    for await (const event of client.runEvents('run_1')) events.push(event);
  })().then(() => null, (error: unknown) => error);
  expect(interruption).toBeInstanceOf(RunStreamInterruptedError);
  return { events, interruption: interruption as RunStreamInterruptedError };
}

describe('runEvents on a stream cut off before its terminal event', () => {
  for (const how of ['end', 'reset'] as const) {
    it(`throws, naming the id to resume from, and resumes there with Last-Event-ID (${how === 'end' ? 'the response ended' : 'the connection was reset'})`, async () => {
      const fake = await fakeStream(2, how);
      const client = new AgentdClient({ baseUrl: fake.url, apiKey: 'k' });
      const { events, interruption } = await follow(client);
      expect(events.map((e) => e.id)).toEqual([1, 2]);
      expect(interruption.lastEventId).toBe(2);
      expect(interruption.message).toContain('resume with lastEventId 2');

      const rest: RunEvent[] = [];
      for await (const event of client.runEvents('run_1', { lastEventId: interruption.lastEventId })) rest.push(event);
      expect(rest.map((e) => [e.id, e.event])).toEqual([[3, 'tool.result'], [4, 'run.complete']]);
      expect(fake.lastEventIds).toEqual([undefined, '2']);
    });
  }
});
