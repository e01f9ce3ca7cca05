import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveEvent } from '../../../runs/fan-out.js';
import type { RunEvent } from '../../../storage/ports/runs.js';
import { sseFrame } from './sse-frames.js';
import { SseViewer } from './sse-viewer.js';
import { WRITE_SLICE_BYTES } from './write-pacer.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A server whose single response is handed to the test, and a raw client socket to it. */
async function connection(): Promise<{ res: ServerResponse; socket: Socket }> {
  let handed!: (res: ServerResponse) => void;
  const responded = new Promise<ServerResponse>((resolve) => (handed = resolve));
  const server: Server = createServer((_req, res) => handed(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.on('error', () => {});
  cleanups.push(() => socket.destroy());
  socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  return { res: await responded, socket };
}

/** Resolves once the socket has stopped taking what the response writes (its client does not read). */
async function stalled(res: ServerResponse): Promise<void> {
  let unchanged = 0;
  let last = -1;
  while (unchanged < 20) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    unchanged = res.writableNeedDrain && res.writableLength === last ? unchanged + 1 : 0;
    last = res.writableLength;
  }
}

/** The body of a chunked HTTP response (after its head), without the chunk framing. */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = raw.indexOf('\r\n\r\n') + 4;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

// Frames are shared by run and event id: each test is its own run.
let RUN = '';
let runs = 0;
beforeEach(() => void (RUN = `run_viewer_${++runs}`));
const event = (id: number, size = 10): RunEvent => ({ id, name: 'tool.result', data: JSON.stringify({ pad: 'x'.repeat(size) }) });

describe('SseViewer', () => {
  it('holds what the run sends before the stream opens, then writes it after the replay, once', async () => {
    const { res, socket } = await connection();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const viewer = new SseViewer(res, RUN);
    // Attached to a live run while the handler still reads the stored log.
    viewer.send(event(2));
    viewer.send(event(3));
    viewer.end();
    expect(res.headersSent).toBe(false);
    viewer.start([event(1), event(2)], false);
    // The response is complete when its last (empty) chunk has arrived.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => received.endsWith('0\r\n\r\n') && (clearInterval(check), resolve()), 2);
    });
    expect([...received.matchAll(/^id: (\d+)$/gm)].map((m) => m[1])).toEqual(['1', '2', '3']);
    expect(received).toContain('content-type: text/event-stream');
  });

  it('writes a large event in slices whose bytes are exactly its frame, once, in order with the others', async () => {
    const { res, socket } = await connection();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const viewer = new SseViewer(res, RUN);
    viewer.start([event(1)], false);
    // Not a multiple of the slice, and multi-byte characters across slice boundaries.
    const big: RunEvent = { id: 2, name: 'run.complete', data: JSON.stringify({ response: 'é€'.repeat(700_001) }) };
    viewer.send(big);
    viewer.send(event(3));
    viewer.end();
    // The response is complete when its last (empty) chunk has arrived.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => Buffer.concat(chunks).subarray(-5).toString() === '0\r\n\r\n' && (clearInterval(check), resolve()), 5);
    });
    const expected = Buffer.concat([Buffer.from('retry: 3000\n\n'), sseFrame(RUN, event(1)), sseFrame(RUN, big), sseFrame(RUN, event(3))]);
    expect(dechunk(Buffer.concat(chunks)).equals(expected)).toBe(true);
  });

  it('with deltas: the replay, then run.text with the text so far, then what arrived meanwhile; without, no live events', async () => {
    const streams = await Promise.all([connection(), connection()]);
    const received = ['', ''];
    streams.forEach(({ socket }, i) => socket.on('data', (chunk: Buffer) => (received[i] += chunk.toString())));
    const [withDeltas, without] = [new SseViewer(streams[0]!.res, RUN, { deltas: true }), new SseViewer(streams[1]!.res, RUN)];
    expect(without.sendLive).toBeUndefined();
    withDeltas.sendLive!(liveEvent('run.delta', 'more '));
    withDeltas.send(event(2));
    for (const viewer of [withDeltas, without]) {
      viewer.end();
      viewer.start([event(1)], false, 'so far ');
    }
    await new Promise<void>((resolve) => {
      const check = setInterval(() => received.every((r) => r.endsWith('0\r\n\r\n')) && (clearInterval(check), resolve()), 2);
    });
    expect([...received[0]!.matchAll(/^event: (\S+)$/gm)].map((m) => m[1])).toEqual(['tool.result', 'run.text', 'run.delta', 'tool.result']);
    expect(received[0]).toContain('event: run.text\ndata: {"text":"so far "}\n\n');
    expect(received[0]).toContain('event: run.delta\ndata: {"text":"more "}\n\n');
    expect(received[1]).not.toContain('run.text');
  });

  it('disconnects a viewer that stops reading once its backlog passes the byte bound; Node holds one frame meanwhile', async () => {
    const { res, socket } = await connection();
    socket.pause();
    const viewer = new SseViewer(res, RUN, { maxBufferedBytes: 256 * 1024, maxBufferedEvents: 1_000_000 });
    let closed = false;
    viewer.whenClosed(() => (closed = true));
    viewer.start([], false);
    // The kernel's socket buffers take some MiB first; then the events wait in the viewer up to the bound.
    let held = 0;
    let sent = 0;
    for (let id = 1; id <= 5000 && !closed; id++, sent++) {
      viewer.send(event(id, 16 * 1024));
      if (!closed) held = Math.max(held, res.writableLength);
    }
    expect(closed).toBe(true);
    expect(res.destroyed).toBe(true);
    // What Node buffered never passed its high-water mark plus one frame.
    expect(held).toBeLessThanOrEqual(res.socket!.writableHighWaterMark + 17 * 1024);
    expect(sent).toBeGreaterThan(256 / 17);
  });

  it('writes one event larger than the bound to a viewer that has nothing waiting, then bounds what queues behind it', async () => {
    const { res, socket } = await connection();
    socket.pause();
    const viewer = new SseViewer(res, RUN, { maxBufferedBytes: 256 * 1024 });
    let closed = false;
    viewer.whenClosed(() => (closed = true));
    viewer.start([], false);
    // 16 MiB: more than the kernel takes. Node is given one slice at a time, so it holds at most
    // one; the rest waits in the viewer as the one shared frame.
    const big = event(1, 16 * 1024 * 1024);
    viewer.send(big);
    await stalled(res);
    expect(closed).toBe(false);
    const inNode = res.writableLength;
    expect(inNode).toBeGreaterThan(0);
    expect(inNode).toBeLessThanOrEqual(WRITE_SLICE_BYTES + 64);
    // Behind it: 200 KiB fit in the bound and wait in the viewer (Node's buffer does not grow); the
    // next 100 KiB do not fit (the new event counts).
    viewer.send(event(2, 100 * 1024));
    viewer.send(event(3, 100 * 1024));
    expect(closed).toBe(false);
    expect(res.writableLength).toBe(inNode);
    viewer.send(event(4, 100 * 1024));
    expect(closed).toBe(true);
    expect(res.destroyed).toBe(true);
  });

  it('writes a catch-up of several events larger than the bound as the client reads it, then ends', async () => {
    const { res, socket } = await connection();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const viewer = new SseViewer(res, RUN, { maxBufferedBytes: 64 * 1024 });
    let closedAt = '';
    viewer.whenClosed(() => (closedAt = res.destroyed ? 'destroyed' : 'ended'));
    // A client resuming after a disconnect: its replay holds three events of 2 MiB each.
    viewer.start([event(1, 2 << 20), event(2, 2 << 20), event(3, 2 << 20)], false);
    viewer.send(event(4));
    viewer.end();
    await new Promise<void>((resolve) => {
      const check = setInterval(() => received.endsWith('0\r\n\r\n') && (clearInterval(check), resolve()), 5);
    });
    expect([...received.matchAll(/^id: (\d+)$/gm)].map((m) => m[1])).toEqual(['1', '2', '3', '4']);
    expect(closedAt).toBe('ended');
  });

  it('on shutdown ends a viewer that has taken everything and cuts off one that is behind', async () => {
    const [reading, stalled] = [await connection(), await connection()];
    let received = '';
    reading.socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    stalled.socket.pause();
    const viewers = [new SseViewer(reading.res, RUN), new SseViewer(stalled.res, RUN)];
    for (const viewer of viewers) viewer.start([event(1)], false);
    // 16 MiB is more than the kernel takes for a client that does not read.
    viewers[1]!.send(event(2, 16 * 1024 * 1024));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => received.includes('id: 1\n') && (clearInterval(check), resolve()), 2);
    });
    for (const viewer of viewers) viewer.close();
    expect(reading.res.writableEnded).toBe(true);
    expect(reading.res.destroyed).toBe(false);
    expect(stalled.res.destroyed).toBe(true);
  });

  it('disconnects on the event-count bound too, and never throws from send afterwards', async () => {
    const { res, socket } = await connection();
    socket.pause();
    const viewer = new SseViewer(res, RUN, { maxBufferedEvents: 3, maxBufferedBytes: 1 << 30 });
    viewer.start([], false);
    for (let id = 1; id <= 5000 && !res.destroyed; id++) viewer.send(event(id, 4096));
    expect(res.destroyed).toBe(true);
    expect(() => viewer.send(event(9999))).not.toThrow();
  });

  it('pings an idle stream and stops pinging once the client has gone', async () => {
    const { res, socket } = await connection();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const viewer = new SseViewer(res, RUN, { pingIntervalMs: 5 });
    let closed = false;
    viewer.whenClosed(() => (closed = true));
    viewer.start([], false);
    await new Promise<void>((resolve) => {
      const check = setInterval(() => received.includes(': ping') && (clearInterval(check), resolve()), 2);
    });
    expect(received).toMatch(/retry: 3000\n\n/);
    socket.destroy();
    await new Promise<void>((resolve) => res.once('close', () => resolve()));
    expect(closed).toBe(true);
  });
});
