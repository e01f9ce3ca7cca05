import { Worker } from 'node:worker_threads';
import type { AuditPage, AuditQuery } from '../ports/audit.js';
import type { Logger } from '../../log.js';
import { StorageBusyError } from '../ports/errors.js';
import type { QueryRequest } from './audit-query-worker.js';

type Answer = { id: number; page: AuditPage } | { id: number; error: string };

interface Waiter {
  query: AuditQuery;
  resolve: (page: AuditPage) => void;
  reject: (error: Error) => void;
}

/** Queries waiting for the reader at most; more get an error at once rather than a growing queue. */
const MAX_WAITING = 64;

/**
 * Runs audit queries in a worker thread on a read-only connection of the same file. A query
 * with a common `q` substring or a filter without an index checks tens of thousands of events
 * (100–400 ms at a million); in the main thread that would stall every request, SSE stream and
 * webhook for as long. The worker starts with the first query. Should it fail, the queries it held
 * and every later one run in this thread instead (logged once), so the endpoint keeps answering;
 * should it only exit, the next query starts another.
 */
export class AuditReader {
  private worker: Worker | null = null;
  private broken = false;
  private closed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();

  constructor(
    private readonly path: string,
    private readonly inThread: (query: AuditQuery) => AuditPage,
    private readonly log?: Logger,
  ) {}

  run(query: AuditQuery): Promise<AuditPage> {
    if (this.closed) return Promise.reject(new Error('the audit store is closed'));
    if (this.broken) return Promise.resolve().then(() => this.inThread(query));
    if (this.waiting.size >= MAX_WAITING) return Promise.reject(new StorageBusyError(`audit queries (over ${MAX_WAITING})`));
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { query, resolve, reject });
      worker.postMessage({ id, query } satisfies QueryRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    for (const waiter of this.waiting.values()) waiter.reject(new Error('the audit store is closed'));
    this.waiting.clear();
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(workerModule(), { workerData: { path: this.path } });
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiter = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if ('page' in answer) waiter?.resolve(answer.page);
      else waiter?.reject(new Error(answer.error));
    });
    worker.on('error', (error) => {
      this.log?.warn(`audit query worker failed (${error.message}); audit queries run in the main thread from now on`);
      this.broken = true;
    });
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.answerInThread();
    });
    this.worker = worker;
    return worker;
  }

  /** The queries the worker held when it went, answered here. */
  private answerInThread(): void {
    const held = [...this.waiting.values()];
    this.waiting.clear();
    for (const { query, resolve, reject } of held) {
      try {
        resolve(this.inThread(query));
      } catch (error) {
        reject(error as Error);
      }
    }
  }
}

/**
 * The worker's compiled module. Under the test runner this file is TypeScript, which a worker
 * thread cannot load; `npm test` builds first, so the compiled worker in `dist/` is used.
 */
function workerModule(): URL {
  const url = new URL(import.meta.url);
  return url.pathname.endsWith('.ts')
    ? new URL('../../../dist/src/storage/sqlite/audit-query-worker.js', url)
    : new URL('./audit-query-worker.js', url);
}
