import { describe, expect, it } from 'vitest';
import { readServerSentEvents, type ServerSentEvent } from './server-sent-events.js';

/** A body that delivers `parts` as separate network chunks. */
function body(parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(typeof part === 'string' ? new TextEncoder().encode(part) : part);
      controller.close();
    },
  });
}

async function read(parts: (string | Uint8Array)[]): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(body(parts))) events.push(event);
  return events;
}

describe('readServerSentEvents', () => {
  it('reads events with their event field, joins data lines and skips comments, ids and retries', async () => {
    expect(await read([': keep-alive\n\nevent: delta\nid: 7\nretry: 10\ndata: one\ndata:two\n\ndata: {"a":1}\n\n'])).toEqual([
      { event: 'delta', data: 'one\ntwo' },
      { event: null, data: '{"a":1}' },
    ]);
  });

  it('accepts LF, CRLF and lone CR line ends, also when a CRLF is split between chunks', async () => {
    expect(await read(['data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r', '\n\r', '\ndata: e\r', 'data: f\n\n'])).toEqual([
      { event: null, data: 'a' },
      { event: null, data: 'b' },
      { event: null, data: 'c' },
      { event: null, data: 'd' },
      { event: null, data: 'e\nf' },
    ]);
  });

  it('keeps a character whose UTF-8 bytes are split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: é€\n\n');
    expect(await read([bytes.subarray(0, 7), bytes.subarray(7, 10), bytes.subarray(10)])).toEqual([{ event: null, data: 'é€' }]);
  });

  it('drops an event the body ends before its blank line', async () => {
    expect(await read(['data: whole\n\n', 'data: cut off\n'])).toEqual([{ event: null, data: 'whole' }]);
  });

  it('reads a 16 MiB line that arrives in 16 KiB chunks without searching it again per chunk', async () => {
    const line = `data: ${'x'.repeat(16 * 1024 * 1024)}\n\n`;
    const parts: string[] = [];
    for (let i = 0; i < line.length; i += 16 * 1024) parts.push(line.slice(i, i + 16 * 1024));
    const started = performance.now();
    const events = await read(parts);
    // Re-searching everything buffered on each of these 1,024 chunks takes tens of seconds.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(16 * 1024 * 1024);
  });

  it('cancels the body when its reader stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: first\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of readServerSentEvents(stream)) {
      expect(event.data).toBe('first');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
