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
 * automatic checkpoint is switched back on, so the WAL can never grow without bound.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.path);
db.pragma('busy_timeout = 5000');
// A failure is reported when it starts or changes, and the recovery once: on a full disk every
// attempt fails until space is freed, and the log must not get a line per second.
let failing = null;
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    if (failing !== null) parentPort.postMessage({ recovered: true });
    failing = null;
  } catch (error) {
    const message = String(error && error.message);
    if (message !== failing) parentPort.postMessage({ error: message });
    failing = message;
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

const AUTOCHECKPOINT_PAGES = 1000;

export interface Checkpointer {
  /** The worker thread (supervision and tests). */
  readonly worker: Worker;
  /** Stop the worker and wait until its connection is closed. */
  stop(): Promise<void>;
}

export function startCheckpointer(database: Database, options: { intervalMs?: number; log?: Logger } = {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver, path: database.path, intervalMs: options.intervalMs ?? 1000 },
  });
  worker.unref();
  database.db.pragma('wal_autocheckpoint = 0');
  let stopping = false;
  worker.on('message', (message: { error?: string; recovered?: boolean }) => {
    if (message.error) options.log?.warn(`WAL checkpoint failed: ${message.error} (reported again only if the failure changes)`);
    if (message.recovered) options.log?.warn('WAL checkpoint works again');
  });
  worker.on('error', (error) => options.log?.warn(`WAL checkpoint worker failed: ${error.message}`));
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      if (!stopping) options.log?.warn(`WAL checkpoint worker exited (${code}); checkpointing in the main thread again`);
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
