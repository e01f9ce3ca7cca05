import { describe, expect, it } from 'vitest';
import { sseMessages, type SseMessage } from './sse.js';

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

async function all(body: ReadableStream<Uint8Array>, maxLineChars = 1000): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of sseMessages(body, maxLineChars)) out.push(message);
  return out;
}

const WIRE = 'retry: 3000\n\nid: 1\nevent: run.start\ndata: {"run_id":"r","note":"é✓"}\n\n: ping\n\n' +
  'id: 2\r\nevent: run.complete\r\ndata: {"a":1}\r\ndata:{"b":2}\r\n\r\n';

describe('sseMessages', () => {
  it('reads events however the bytes are cut: comments and retry skipped, CRLF lines, multi-line data', async () => {
    const expected = [
      { id: '1', event: 'run.start', data: '{"run_id":"r","note":"é✓"}' },
      { id: '2', event: 'run.complete', data: '{"a":1}\n{"b":2}' },
    ];
    for (const size of [1, 2, 3, 7, 64, WIRE.length * 2]) expect(await all(stream(WIRE, size)), `chunks of ${size}`).toEqual(expected);
  });

  it('does not yield an event the stream cut off before its blank line', async () => {
    expect(await all(stream('id: 1\nevent: run.start\ndata: {}\n\nid: 2\nevent: tool.request\ndata: {"x"', 5))).toEqual([
      { id: '1', event: 'run.start', data: '{}' },
    ]);
  });

  it('refuses a line longer than its bound instead of buffering it', async () => {
    await expect(all(stream(`data: ${'x'.repeat(5000)}`, 512), 1000)).rejects.toThrow('an event stream line is longer than 1000 characters');
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
    for await (const message of sseMessages(body, 1000)) {
      expect(message.data).toBe('1');
      break;
    }
    expect(cancelled).toBe(true);
  });
});
