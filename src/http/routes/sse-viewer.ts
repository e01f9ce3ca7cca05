import type { ServerResponse } from 'node:http';
import type { RunViewer } from '../../agent/fan-out.js';
import type { RunEvent } from '../../agent/types.js';
import { SECURITY_HEADERS } from '../../security/headers.js';

/** Reconnect delay EventSource clients are told to use (decisions.md). */
export const SSE_RETRY_MS = 3000;
export const SSE_PING_INTERVAL_MS = 15_000;
/** A viewer further behind than this is disconnected; it can resume with Last-Event-ID. */
export const MAX_BUFFERED_EVENTS = 256;
export const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface SseViewerOptions {
  pingIntervalMs?: number;
  maxBufferedEvents?: number;
  maxBufferedBytes?: number;
}

/**
 * Every viewer of a run is sent the same event objects; the frame text is built once per event and
 * shared (a thousand viewers of one run do not make a thousand copies of it).
 */
const frames = new WeakMap<RunEvent, string>();

export function sseFrame(event: RunEvent): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `id: ${event.id}\nevent: ${event.name}\ndata: ${event.data}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}

/**
 * One SSE connection watching a run, writing to the raw response of a hijacked reply. Writes never
 * wait: Node buffers what the socket has not taken yet, and a viewer whose backlog passes the
 * bounds (events written since the socket last drained, or buffered bytes) is disconnected rather
 * than allowed to grow — the run and the other viewers never wait for it.
 */
export class SseViewer implements RunViewer {
  private readonly maxEvents: number;
  private readonly maxBytes: number;
  private readonly pingIntervalMs: number;
  private backlog = 0;
  private ping: NodeJS.Timeout | undefined;
  private closed = false;
  private onClose: (() => void)[] = [];
  /**
   * What the run sent before the stream was opened: the viewer is attached to a live run before
   * the handler (which awaits the store for the replay) opens the response. Null once open.
   */
  private early: { events: RunEvent[]; ended: boolean } | null = { events: [], ended: false };

  constructor(private readonly res: ServerResponse, options: SseViewerOptions = {}) {
    this.maxEvents = options.maxBufferedEvents ?? MAX_BUFFERED_EVENTS;
    this.maxBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    this.pingIntervalMs = options.pingIntervalMs ?? SSE_PING_INTERVAL_MS;
  }

  /**
   * Sends the head (with the security headers: a hijacked reply skips Fastify's hooks' headers)
   * and the retry hint, and starts the keep-alive pings.
   */
  private open(): void {
    // A client that left while the request was being handled gets no 'close' event any more.
    if (!this.res.socket || this.res.socket.destroyed) {
      this.cleanup();
      return;
    }
    this.res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.res.write(`retry: ${SSE_RETRY_MS}\n\n`);
    this.res.on('drain', () => (this.backlog = 0));
    this.res.once('close', () => this.cleanup());
    this.ping = setInterval(() => {
      if (this.backlog === 0) this.res.write(': ping\n\n');
    }, this.pingIntervalMs);
  }

  /** Opens the stream, writes `replay`, then what arrived meanwhile; ends it if the run ended. */
  start(replay: readonly RunEvent[], finished: boolean): void {
    const early = this.early!;
    this.early = null;
    this.open();
    let last = 0;
    for (const event of replay) {
      this.send(event);
      last = event.id;
    }
    for (const event of early.events) if (event.id > last) this.send(event);
    if (finished || early.ended) this.end();
  }

  /** Runs once when the connection ends, whichever side ends it. */
  whenClosed(fn: () => void): void {
    if (this.closed) fn();
    else this.onClose.push(fn);
  }

  send(event: RunEvent): void {
    if (this.early) {
      this.early.events.push(event);
      return;
    }
    if (this.closed) return;
    // Judged on what was already waiting: one frame larger than the byte bound (a long reply) must
    // still reach a viewer that keeps up, or every reconnect would fail on the same event.
    const waiting = this.res.writableLength;
    const flushed = this.res.write(sseFrame(event));
    if (flushed) return;
    this.backlog++;
    if (this.backlog > this.maxEvents || waiting > this.maxBytes) {
      this.res.destroy();
      this.cleanup();
    }
  }

  end(): void {
    if (this.early) {
      this.early.ended = true;
      return;
    }
    if (this.closed) return;
    this.res.end();
    this.cleanup();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.ping);
    for (const fn of this.onClose.splice(0)) fn();
  }
}
