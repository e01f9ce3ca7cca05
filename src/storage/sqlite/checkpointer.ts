import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log.js';
import type { Database } from './database.js';

/**
 * Copies the WAL back into the database file from a worker thread. SQLite's automatic checkpoint
 * runs inside whichever commit crosses the threshold, on the event loop, and its fsync stalled
 * requests for tens to hundreds of milliseconds under disk load. Here the main connection's
 * automatic checkpoint is switched off and a second connection in a worker checkpoints on a timer
 * (PASSIVE: it never blocks writers or readers). Should the worker die, the main connection's
 * automatic checkpoint is switched back on.
 *
 * Copying is not enough to keep the WAL small: SQLite starts writing it from the beginning again
 * only at a write that begins after a checkpoint copied every frame. A checkpoint from another
 * thread takes a few milliseconds (its fsyncs), and under a steady stream of commits one always
 * lands meanwhile, so the file grew for as long as the load lasted (6 MB/s at 400 audit events/s).
 * So once the WAL is past `restartFrames`, the worker asks for a quiet pass: the main thread holds
 * its commits back (the writes wait in their queue; the event loop does not), the worker copies
 * the few frames left, and the next commit starts the WAL over (docs/decisions.md#the-wal-starts-over).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.path);
db.pragma('busy_timeout = 5000');
// A failure is reported when it starts or changes, and the recovery once: on a full disk every
// attempt fails until space is freed, and the log must not get a line per second.
let failing = null;
let timer = null;
let stopped = false;
function checkpoint() {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (failing !== null) parentPort.postMessage({ recovered: true });
    failing = null;
    return result;
  } catch (error) {
    const message = String(error && error.message);
    if (message !== failing) parentPort.postMessage({ error: message });
    failing = message;
    return null;
  }
}
function next() {
  if (!stopped) timer = setTimeout(pass, workerData.intervalMs);
}
function pass() {
  timer = null;
  const result = checkpoint();
  // Past the limit: the main thread answers 'quiet' once its commits are held back.
  if (result !== null && result.log >= workerData.restartFrames) parentPort.postMessage({ quiet: true });
  else next();
}
parentPort.on('message', (message) => {
  if (message === 'quiet') {
    checkpoint();
    parentPort.postMessage({ resume: true });
    return next();
  }
  if (message !== 'stop') return;
  stopped = true;
  if (timer !== null) clearTimeout(timer);
  db.close();
  parentPort.close();
});
next();
`;

const AUTOCHECKPOINT_PAGES = 1000;
/** The WAL size (frames, 4 KiB each) past which it is started over: 16 MiB. */
const RESTART_FRAMES = 4096;
/** The WAL file is cut back to this size when it starts over (a burst may have grown it). */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** Commits are held back at most this long for a quiet pass, whatever the worker does. */
const MAX_QUIET_MS = 250;

/** What the main thread does for a quiet pass: its unit of work holds its commits, then goes on. */
export interface CommitPause {
  pause(): void;
  resume(): void;
}

export interface Checkpointer {
  /** The worker thread (supervision and tests). */
  readonly worker: Worker;
  /** Stop the worker and wait until its connection is closed. */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  intervalMs?: number;
  /** WAL frames past which a quiet pass starts it over (default 4,096); tests set less. */
  restartFrames?: number;
  /** Without it the WAL is copied, never started over while commits keep coming. */
  commits?: CommitPause;
  log?: Logger;
}

export function startCheckpointer(database: Database, options: CheckpointerOptions = {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const restartFrames = options.commits ? (options.restartFrames ?? RESTART_FRAMES) : Number.MAX_SAFE_INTEGER;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, path: database.path, intervalMs: options.intervalMs ?? 1000, restartFrames },
  });
  worker.unref();
  database.db.pragma('wal_autocheckpoint = 0');
  database.db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  let stopping = false;
  const quiet = quietPasses(worker, options.commits);
  worker.on('message', (message: { error?: string; recovered?: boolean; quiet?: boolean; resume?: boolean }) => {
    if (message.error) options.log?.warn(`WAL checkpoint failed: ${message.error} (reported again only if the failure changes)`);
    if (message.recovered) options.log?.warn('WAL checkpoint works again');
    if (message.quiet) quiet.begin();
    if (message.resume) quiet.end();
  });
  worker.on('error', (error) => options.log?.warn(`WAL checkpoint worker failed: ${error.message}`));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      if (!stopping) options.log?.warn(`WAL checkpoint worker exited (${code}); checkpointing in the main thread again`);
      quiet.end();
      if (database.open) database.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      resolve();
    }),
  );
  return {
    worker,
    async stop() {
      if (stopping) return exited;
      stopping = true;
      worker.postMessage('stop');
      // A worker stuck in a long checkpoint must not hold up shutdown.
      const deadline = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(deadline);
    },
  };
}

/**
 * The main thread's side of a quiet pass: commits held from the worker's ask until its answer, or
 * `MAX_QUIET_MS` at most, so a stuck or dead worker never holds writes for longer.
 */
function quietPasses(worker: Worker, commits: CommitPause | undefined): { begin(): void; end(): void } {
  let limit: NodeJS.Timeout | null = null;
  const end = () => {
    if (limit === null) return;
    clearTimeout(limit);
    limit = null;
    commits?.resume();
  };
  return {
    begin() {
      // Always answered: the worker waits for this before it checkpoints again.
      if (commits !== undefined && limit === null) {
        commits.pause();
        limit = setTimeout(end, MAX_QUIET_MS);
      }
      worker.postMessage('quiet');
    },
    end,
  };
}
