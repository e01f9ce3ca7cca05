import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.js';
import { RunAgain } from '../util/run-again.js';
import { AgentError, runFinished, runNotFound } from '../contracts/agent-errors.js';
import { FanOut, liveEvent, type RunViewer, type WatchResult } from './fan-out.js';
import type { RunEventBus, TextPiece } from './run-event-bus.js';
import type { RunStore } from '../storage/ports/runs.js';
import { TERMINAL_EVENTS, type RunEvent, type RunRecord } from '../storage/ports/runs.js';

/**
 * How often a watched run's stored log is read for what the bus did not bring: a message lost
 * while Redis was away, or a replica that could not publish. Bus messages come in milliseconds;
 * this is the bound on the delay when they do not.
 */
export const REMOTE_POLL_MS = 2_000;
/** Runs of other replicas this replica mirrors at once; past it a new watch is refused (503). */
export const MAX_REMOTE_RUNS = 10_000;
/** How long a cancel of a run executing elsewhere waits for that replica to end it. */
export const REMOTE_CANCEL_WAIT_MS = 2_000;

type Watching = Extract<WatchResult, { found: true }>;

/** This replica's copy of the log of a run executing on another one, and its viewers here. */
interface Mirror {
  runId: string;
  /** The committed log so far, in order (from the store, then from the bus). */
  events: RunEvent[];
  fanOut: FanOut;
  /** The terminal event was seen (ended), or the last viewer left (released). */
  closed: boolean;
  ended: boolean;
  unsubscribe: () => void;
  poll: NodeJS.Timeout | undefined;
  reads: RunAgain;
  /** The last read of the stored log failed (logged once, until a read works again). */
  readFailing: boolean;
  /**
   * The run's live text as heard on the bus; null once a piece was missed (the mirror opened
   * mid-answer, or a message was lost): from then on viewers joining here get the pieces only.
   */
  text: string | null;
}

export interface RemoteRunsOptions {
  store: RunStore;
  bus: RunEventBus;
  log: Logger;
  maxViewersPerRun: number;
  pollMs?: number;
}

/**
 * Viewers and cancels, on this replica, of runs executing on another one. One mirror per watched
 * run, shared by its viewers here: it subscribes to the run's events on the bus, then reads the
 * stored log, so nothing committed falls between the two; bus events are taken in id order, and a
 * gap (a lost message) is filled from the store, as is whatever the periodic read finds. Every
 * viewer therefore gets every event once, in order, ending with the one terminal event.
 */
export class RemoteRuns {
  private readonly mirrors = new Map<string, Promise<Mirror>>();
  private readonly pollMs: number;

  constructor(private readonly options: RemoteRunsOptions) {
    this.pollMs = options.pollMs ?? REMOTE_POLL_MS;
    // Messages may have been lost while the bus was away: read what the store has now.
    options.bus.onResume(() => {
      for (const pending of this.mirrors.values()) void pending.then((mirror) => this.sync(mirror), () => undefined);
    });
  }

  /** Replays the mirrored log after `afterId` and adds `viewer` for the rest (as the registry does for its own runs). */
  async watch(runId: string, afterId: number, viewer: RunViewer): Promise<Watching> {
    for (;;) {
      const mirror = await this.mirror(runId);
      const replay = mirror.events.filter((event) => event.id > afterId);
      if (mirror.ended) return { found: true, replay, finished: true, text: '', stop: () => {} };
      // Released by its last viewer while this one waited for it: open a new one.
      if (mirror.closed) continue;
      if (mirror.fanOut.size >= this.options.maxViewersPerRun) {
        throw new AgentError('capacity', `run '${runId}' already has ${this.options.maxViewersPerRun} viewers`);
      }
      mirror.fanOut.add(viewer);
      return {
        found: true, replay, finished: false, text: viewer.sendLive ? (mirror.text ?? '') : '',
        stop: () => {
          mirror.fanOut.remove(viewer);
          if (mirror.fanOut.size === 0) this.close(mirror);
        },
      };
    }
  }

  /**
   * Asks the replica executing the run to cancel it and waits (bounded) for its terminal event.
   * The run's record as stored then: `cancelled`, or still running when that replica did not answer
   * in time (it may be gone; its runs are then recovered as interrupted).
   */
  async cancel(runId: string): Promise<RunRecord> {
    let ended!: () => void;
    const terminal = new Promise<void>((resolve) => (ended = resolve));
    const watch = await this.watch(runId, Number.MAX_SAFE_INTEGER, { send: () => {}, end: () => ended() });
    try {
      if (!watch.finished) {
        await this.options.bus.requestCancel(runId).catch((error: unknown) => {
          this.options.log.warn(`could not ask for the cancel of run ${runId} (executing on another replica): ${(error as Error)?.message ?? String(error)}`);
          throw new AgentError('coordination_unavailable', `run '${runId}' is executing on another replica, which cannot be reached now; retry`);
        });
        await Promise.race([terminal, sleep(REMOTE_CANCEL_WAIT_MS, undefined, { ref: false })]);
      }
    } finally {
      watch.stop();
    }
    const record = await this.options.store.get(runId);
    if (!record) throw runNotFound(runId);
    if (watch.finished || (record.status !== 'cancelled' && record.finished_at !== null)) throw runFinished(runId, record.status);
    return record;
  }

  /** Stops every mirror (shutdown): its viewers get the end; they resume elsewhere with Last-Event-ID. */
  async closeAll(): Promise<void> {
    const mirrors = await Promise.allSettled([...this.mirrors.values()]);
    for (const result of mirrors) if (result.status === 'fulfilled') this.close(result.value);
  }

  private mirror(runId: string): Promise<Mirror> {
    const existing = this.mirrors.get(runId);
    if (existing) return existing;
    if (this.mirrors.size >= MAX_REMOTE_RUNS) {
      throw new AgentError('capacity', `${MAX_REMOTE_RUNS} runs of other replicas are watched from here; try again later`);
    }
    const opened = this.open(runId);
    this.mirrors.set(runId, opened);
    opened.catch(() => this.mirrors.delete(runId));
    return opened;
  }

  private async open(runId: string): Promise<Mirror> {
    const mirror: Mirror = {
      runId, events: [], closed: false, ended: false, unsubscribe: () => {}, poll: undefined, readFailing: false, text: '',
      reads: new RunAgain(() => this.readStored(mirror)),
      fanOut: new FanOut((_viewer, error) => this.options.log.warn(`dropped a viewer of run ${runId}: ${(error as Error)?.message ?? String(error)}`)),
    };
    // Subscribed before the store is read: an event committed in between arrives on the bus.
    mirror.unsubscribe = await this.options.bus.subscribe(runId, (event) => this.fromBus(mirror, event), (piece) => this.textFromBus(mirror, piece));
    mirror.poll = setInterval(() => void this.sync(mirror), this.pollMs);
    mirror.poll.unref();
    await this.sync(mirror);
    return mirror;
  }

  private fromBus(mirror: Mirror, event: RunEvent): void {
    const last = mirror.events.at(-1)?.id ?? 0;
    // A gap may be a lost message or an event whose write failed (its id is then never used): the
    // store knows which, and has everything up to this event.
    if (event.id > last + 1) void this.sync(mirror);
    else this.take(mirror, event);
  }

  /** A piece of the run's live text: to the viewers that asked, and onto the text a joining viewer is given. */
  private textFromBus(mirror: Mirror, piece: TextPiece): void {
    if (mirror.closed) return;
    if (mirror.text !== null) mirror.text = piece.offset === mirror.text.length ? mirror.text + piece.text : null;
    mirror.fanOut.sendLive(liveEvent('run.delta', piece.text));
  }

  /** Reads the stored log after the last event taken; serialised, and run again when asked meanwhile. */
  private sync(mirror: Mirror): Promise<void> {
    return mirror.reads.run();
  }

  /** One read of the stored log; false (no further read now) when it failed or the mirror closed. */
  private async readStored(mirror: Mirror): Promise<boolean> {
    let events: RunEvent[];
    try {
      events = await this.options.store.events(mirror.runId, mirror.events.at(-1)?.id ?? 0);
    } catch (error) {
      if (!mirror.readFailing) this.options.log.warn(`could not read the events of run ${mirror.runId} (trying again every ${this.pollMs} ms): ${(error as Error)?.message ?? String(error)}`);
      mirror.readFailing = true;
      return false;
    }
    mirror.readFailing = false;
    for (const event of events) this.take(mirror, event);
    return !mirror.closed;
  }

  private take(mirror: Mirror, event: RunEvent): void {
    if (mirror.closed || event.id <= (mirror.events.at(-1)?.id ?? 0)) return;
    mirror.events.push(event);
    mirror.fanOut.send(event);
    if (TERMINAL_EVENTS.has(event.name)) {
      mirror.ended = true;
      this.close(mirror);
    }
  }

  private close(mirror: Mirror): void {
    if (mirror.closed) return;
    mirror.closed = true;
    clearInterval(mirror.poll);
    mirror.unsubscribe();
    void mirror.fanOut.end();
    this.mirrors.delete(mirror.runId);
  }
}
