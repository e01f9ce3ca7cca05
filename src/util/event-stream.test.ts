import { describe, expect, it } from 'vitest';
import { readEventStream, type EventStreamMessage } from './event-stream.js';

/** The text as a byte stream cut into the given chunk sizes (a multi-byte character may be split). */
function stream(text: string, chunkBytes: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + chunkBytes));
      at += chunkBytes;
    },
  });
}

/** A body that delivers `parts` as separate chunks. */
function parts(texts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const text of texts) controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

async function all(body: ReadableStream<Uint8Array>, maxLineChars?: number): Promise<EventStreamMessage[]> {
  const out: EventStreamMessage[] = [];
  for await (const message of readEventStream(body, maxLineChars)) out.push(message);
  return out;
}

const WIRE = 'retry: 3000\n\nid: 1\nevent: run.start\ndata: {"run_id":"r","note":"é✓"}\n\n: ping\n\n' +
  'id: 2\r\nevent: run.complete\r\ndata: {"a":1}\r\ndata:{"b":2}\r\n\r\ndata: no type, id carried over\n\n';

describe('readEventStream', () => {
  it('reads events however the bytes are cut: comments and retry skipped, CRLF lines, multi-line data, the id carried over', async () => {
    const expected = [
      { id: '1', event: 'run.start', data: '{"run_id":"r","note":"é✓"}' },
      { id: '2', event: 'run.complete', data: '{"a":1}\n{"b":2}' },
      { id: '2', event: 'message', data: 'no type, id carried over' },
    ];
    for (const size of [1, 2, 3, 7, 64, WIRE.length * 2]) expect(await all(stream(WIRE, size)), `chunks of ${size}`).toEqual(expected);
  });

  it('accepts lone CR line ends, also when a CRLF is split between chunks', async () => {
    expect(await all(parts(['data: b\r\rdata: d\r', '\n\r', '\ndata: e\r', 'data: f\n\n']))).toEqual([
      { id: null, event: 'message', data: 'b' },
      { id: null, event: 'message', data: 'd' },
      { id: null, event: 'message', data: 'e\nf' },
    ]);
  });

  it('does not yield an event the stream cut off before its blank line', async () => {
    expect(await all(stream('id: 1\nevent: run.start\ndata: {}\n\nid: 2\nevent: tool.request\ndata: {"x"', 5))).toEqual([
      { id: '1', event: 'run.start', data: '{}' },
    ]);
  });

  it('refuses a line longer than its bound instead of buffering it', async () => {
    await expect(all(stream(`data: ${'x'.repeat(5000)}`, 512), 1000)).rejects.toThrow('an event stream line is longer than 1000 characters');
  });

  // Re-searching everything buffered on each of these 1,024 chunks takes minutes: such a reader
  // fails this test by its time-out; a linear one reads the line in well under a second.
  it('reads a 16 MiB line that arrives in 16 KiB chunks without searching it again per chunk', { timeout: 20_000 }, async () => {
    const line = `data: ${'x'.repeat(16 * 1024 * 1024)}\n\n`;
    const events = await all(stream(line, 16 * 1024));
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(16 * 1024 * 1024);
  });

  it('closes the stream when the reader stops early', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('id: 1\nevent: a\ndata: 1\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const message of readEventStream(body)) {
      expect(message.data).toBe('1');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
