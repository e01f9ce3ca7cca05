import { parentPort, workerData } from 'node:worker_threads';
import type { AuditQuery } from '../ports/audit.js';
import { AuditKinds } from './audit-kinds.js';
import { AuditQueryEngine } from './audit-query.js';
import { AuditSearchIndex } from './audit-search.js';
import { Database } from './database.js';

/**
 * The audit query engine on its own read-only connection, in a worker thread (see AuditReader).
 * Each query runs in one read transaction, so its total, facets and page come from one state of
 * the file while the service keeps writing on its own connection.
 */
export interface QueryRequest {
  id: number;
  query: AuditQuery;
}

const port = parentPort!;
const database = new Database((workerData as { path: string }).path, undefined, { readonly: true });
/**
 * The file is read through a memory map (docs/decisions.md#audit-queries-read-a-mapped-file):
 * SQLite drops a connection's page cache whenever the service has written since its last
 * read, which at a few writes a second is every query, so each row a `q` checks was a copy out of
 * the OS cache. SQLite maps read-only and caps the size at its build's maximum (2 GiB).
 */
const MAPPED_BYTES = 2 ** 31;
database.db.pragma(`mmap_size = ${MAPPED_BYTES}`);
const kinds = new AuditKinds(database.db);
const engine = new AuditQueryEngine(database.db, kinds, new AuditSearchIndex(database));
const run = database.db.transaction((query: AuditQuery) => {
  // The service adds a kind with the first event of it; this connection learns of it here.
  kinds.reload();
  return engine.run(query);
});

port.on('message', ({ id, query }: QueryRequest) => {
  try {
    port.postMessage({ id, page: run(query) });
  } catch (error) {
    port.postMessage({ id, error: (error as Error).message });
  }
});
