import type { ServerResponse } from 'node:http';
import type { LiveEvent, RunViewer } from '../../../runs/fan-out.js';
import type { RunEvent } from '../../../storage/ports/runs.js';
import { liveFrame, runTextFrame, sseFrame } from './sse-frames.js';
import { sharedWritePacer, WRITE_SLICE_BYTES, type PacedWriter, type WritePacer } from './write-pacer.js';
import { SECURITY_HEADERS } from '../../../listener/headers.js';

/** Reconnect delay EventSource clients are told to use (docs/api.md#run-event-stream). */
export const SSE_RETRY_MS = 3000;
export const SSE_PING_INTERVAL_MS = 15_000;
/**
 * Bounds of what a viewer that has fallen behind may have waiting for it (events and bytes, the
 * event being added included); past either it is disconnected and resumes with Last-Event-ID.
 */
export const MAX_BUFFERED_EVENTS = 256;
export const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface SseViewerOptions {
  pingIntervalMs?: number;
  maxBufferedEvents?: number;
  maxBufferedBytes?: number;
  /** The viewer asked for the run's live text (`include=deltas`): `run.text` and `run.delta` events. */
  deltas?: boolean;
  /** Whose turns the socket writes take (the process's shared pacer unless a test gives its own). */
  pacer?: WritePacer;
}

/**
 * One SSE connection watching a run, writing to the raw response of a hijacked reply. Events are
 * shared frames (sse-frames.ts), written through the process's `WritePacer` in slices of the
 * frame (no copies), one slice at a time and only once the socket has taken the previous one: so
 * Node holds at most one slice for a viewer, a viewer that keeps up receives an event of any size
 * (a long answer can always be seen), and handing a 16 MiB answer to many viewers never blocks the
 * event loop for long. The event being written (`current`) is not bounded; events that arrive
 * while the viewer is behind are (MAX_BUFFERED_EVENTS and MAX_BUFFERED_BYTES, the new one
 * included): past either, the socket is destroyed at once and the client resumes from the stored
 * log with Last-Event-ID. A viewer that never reads therefore holds a reference to one shared
 * frame and at most the bound behind it, never a copy.
 *
 * The catch-up (the replay the client asked for, and what the run sent before the stream opened) is
 * not bounded: it is written as the socket takes it, so a client resuming after a disconnect gets
 * its events even when several of them are large.
 */
export class SseViewer implements RunViewer, PacedWriter {
  private readonly maxEvents: number;
  private readonly maxBytes: number;
  private readonly pingIntervalMs: number;
  private readonly pacer: WritePacer;
  /** What the run sent before the stream was opened (the handler reads the replay meanwhile); null once open. */
  private early: (RunEvent | LiveEvent)[] | null = [];
  readonly sendLive?: (event: LiveEvent) => void;
  /** The frame being written and how much of it the socket has been given. */
  private current: { frame: Buffer; offset: number } | null = null;
  /**
   * Frames not started yet, oldest first: the catch-up, then events that arrived while behind. Kept
   * as the shared frames, so waiting here costs no copy of an event.
   */
  private pending: Buffer[] = [];
  /** How many of `pending`, from the front, are the catch-up. */
  private catchUp = 0;
  /** Bytes of the frames in `pending` after the catch-up. */
  private behindBytes = 0;
  /** The run has finished (or the service is closing): the stream ends once everything is written. */
  private ending = false;
  private closed = false;
  private ping: NodeJS.Timeout | undefined;
  private onClose: (() => void)[] = [];

  constructor(private readonly res: ServerResponse, private readonly runId: string, options: SseViewerOptions = {}) {
    this.maxEvents = options.maxBufferedEvents ?? MAX_BUFFERED_EVENTS;
    this.maxBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    this.pingIntervalMs = options.pingIntervalMs ?? SSE_PING_INTERVAL_MS;
    this.pacer = options.pacer ?? sharedWritePacer;
    if (options.deltas) this.sendLive = (event) => this.take(event);
  }

  /**
   * Opens the stream and writes `replay`, then the run's text so far (`run.text`, for a viewer of
   * live text that joins mid-answer), then what arrived meanwhile; ends it if the run ended.
   */
  start(replay: readonly RunEvent[], finished: boolean, text = ''): void {
    const last = replay.at(-1)?.id ?? 0;
    this.pending = [
      ...replay.map((event) => this.frame(event)),
      ...(text && this.sendLive ? [runTextFrame(this.runId, text)] : []),
      ...this.early!.filter((event) => !('id' in event) || event.id > last).map((event) => this.frame(event)),
    ];
    this.early = null;
    this.catchUp = this.pending.length;
    if (finished) this.ending = true;
    if (this.open()) this.pacer.request(this);
  }

  /** Runs once when the connection ends, whichever side ends it. */
  whenClosed(fn: () => void): void {
    if (this.closed) fn();
    else this.onClose.push(fn);
  }

  send(event: RunEvent): void {
    this.take(event);
  }

  private frame(event: RunEvent | LiveEvent): Buffer {
    return 'id' in event ? sseFrame(this.runId, event) : liveFrame(event);
  }

  /** Nothing is being written or waits to be. */
  private get idle(): boolean {
    return this.current === null && this.pending.length === 0;
  }

  /** An event or live event: written now, queued behind (bounded, both kinds counted alike), or before the stream opens, kept. */
  private take(event: RunEvent | LiveEvent): void {
    if (this.closed || this.ending) return;
    if (this.early) {
      this.early.push(event);
      return;
    }
    const frame = this.frame(event);
    if (this.idle && !this.res.writableNeedDrain) {
      this.current = { frame, offset: 0 };
      this.pacer.request(this);
      return;
    }
    // Behind. The event being written is not counted: it is written whole, however large (or no
    // one could ever see a 16 MiB answer, and a reconnect would fail on it again), and it is the
    // frame every viewer shares. What queues behind it must fit in the bounds.
    if (this.pending.length - this.catchUp >= this.maxEvents || this.behindBytes + frame.length > this.maxBytes) {
      this.disconnect();
      return;
    }
    this.pending.push(frame);
    this.behindBytes += frame.length;
  }

  /** The pacer's turn: the next slice of the current frame (starting the next frame when it is done). */
  writeSlice(): { bytes: number; more: boolean } {
    if (this.closed || this.res.writableNeedDrain) return { bytes: 0, more: false };
    if (!this.current) {
      const frame = this.pending.shift();
      if (!frame) {
        // Opened on a finished run with nothing to catch up on.
        if (this.ending) this.finish();
        return { bytes: 0, more: false };
      }
      if (this.catchUp > 0) this.catchUp--;
      else this.behindBytes -= frame.length;
      this.current = { frame, offset: 0 };
    }
    const { frame, offset } = this.current;
    const end = Math.min(frame.length, offset + WRITE_SLICE_BYTES);
    this.res.write(offset === 0 && end === frame.length ? frame : frame.subarray(offset, end));
    if (end === frame.length) this.current = null;
    else this.current.offset = end;
    if (this.idle) {
      if (this.ending) this.finish();
      return { bytes: end - offset, more: false };
    }
    // A socket that has not taken the slice yet says so with 'drain', which asks again.
    return { bytes: end - offset, more: !this.res.writableNeedDrain };
  }

  end(): void {
    if (this.closed) return;
    this.ending = true;
    if (!this.early && this.idle) this.finish();
  }

  /**
   * The service is closing: ends the stream now. A viewer that has not taken everything is cut off
   * (it resumes with Last-Event-ID), or closing the server would wait for it as long as it reads.
   */
  close(): void {
    if (this.closed) return;
    if (!this.early && this.idle && !this.res.writableNeedDrain) this.finish();
    else this.disconnect();
  }

  /**
   * Sends the head (with the security headers: a hijacked reply skips Fastify's hooks' headers)
   * and the retry hint, and starts the keep-alive pings. False when the client has already left.
   */
  private open(): boolean {
    // A client that left while the request was being handled gets no 'close' event any more.
    if (!this.res.socket || this.res.socket.destroyed) {
      this.cleanup();
      return false;
    }
    // No `Connection` header of our own: Node answers `keep-alive` to a client that keeps its
    // connection and `close` (and closes it after the last event) to one that sent `Connection: close`
    // or speaks HTTP/1.0; a fixed `keep-alive` would hold such a client's socket open after the run.
    this.res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'x-accel-buffering': 'no',
    });
    this.res.write(`retry: ${SSE_RETRY_MS}\n\n`);
    this.res.on('drain', () => {
      if (!this.idle) this.pacer.request(this);
    });
    this.res.once('close', () => this.cleanup());
    this.ping = setInterval(() => {
      if (this.idle && !this.res.writableNeedDrain) this.res.write(': ping\n\n');
    }, this.pingIntervalMs);
    return true;
  }

  private finish(): void {
    if (this.closed) return;
    this.res.end();
    this.cleanup();
  }

  private disconnect(): void {
    this.res.destroy();
    this.cleanup();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    this.early = null;
    this.current = null;
    this.pending = [];
    this.pacer.forget(this);
    clearInterval(this.ping);
    for (const fn of this.onClose.splice(0)) fn();
  }
}
