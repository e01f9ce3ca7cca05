import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { StorageFullError } from '../ports/errors.js';

/**
 * Below this many free bytes an I/O error is taken for a full disk. SQLite reports ENOSPC as
 * SQLITE_FULL when the WAL or the database file cannot grow, but as SQLITE_IOERR_SHMSIZE when its
 * shared-memory index cannot (seen on a full tmpfs), and better-sqlite3 does not pass the errno on.
 */
const NEARLY_FULL_BYTES = 1_048_576;

/** A write that failed because of the storage, not because of the data it wrote. */
export interface WriteFault {
  /** The error to hand to the writer: a `StorageFullError` when the disk is full. */
  error: unknown;
  /** For the operator (diagnostics): what went wrong, without a path. */
  reason: string;
}

/**
 * What a failed write on the database at `path` says about the storage, or null when the write
 * itself was refused (a constraint, a trigger, a bug): those say nothing about the disk. A full
 * disk, an I/O error, a read-only file or a corrupt one are faults of the storage.
 */
export function writeFault(error: unknown, path: string): WriteFault | null {
  if (!(error instanceof BetterSqlite3.SqliteError)) return null;
  const { code } = error;
  if (code === 'SQLITE_FULL' || (code.startsWith('SQLITE_IOERR') && freeBytes(path) < NEARLY_FULL_BYTES)) {
    return { error: new StorageFullError({ cause: error }), reason: 'the storage is full' };
  }
  if (/^SQLITE_(IOERR|READONLY|CORRUPT|CANTOPEN|NOTADB)/.test(code)) return { error, reason: `${error.message} (${code})` };
  return null;
}

/** Free bytes on the filesystem of `path` (Infinity when unknown or in memory). */
function freeBytes(path: string): number {
  if (path === ':memory:') return Number.POSITIVE_INFINITY;
  try {
    const stats = statfsSync(dirname(path));
    return stats.bavail * stats.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
