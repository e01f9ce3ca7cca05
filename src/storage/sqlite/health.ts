import { healthCheck as check, type HealthCheck, type StorageHealth } from '../ports/health.js';
import { sizeText } from '../shared/size-text.js';

/** What the embedded backend measures: one SQLite file in the home folder. */
export interface SqliteFacts {
  /** The file's path. */
  location: string;
  sizeBytes: number;
  /** SQLite journal mode (`wal` expected). */
  journalMode: string;
  /** "ok" or the first problem an integrity check found; null when not checked. */
  integrity: string | null;
  /** Space on the filesystem holding the data; null when it cannot be read (or the data is in memory). */
  space: { freeBytes: number; totalBytes: number } | null;
  /** Whether the folder holding the data can be written (false on a read-only mount or snapshot). */
  writable: boolean;
  /** The last write that failed because of the storage (full disk, I/O), until a write commits again. */
  lastWriteFailure: { at: string; reason: string } | null;
}

export type SqliteHealth = StorageHealth & SqliteFacts & { backend: 'sqlite' };

/** The file is in this process: always readable; the checks say how it fares. */
export function sqliteHealth(facts: SqliteFacts): SqliteHealth {
  return { backend: 'sqlite', ...facts, readable: true, checks: sqliteChecks(facts) };
}

function sqliteChecks(facts: SqliteFacts): HealthCheck[] {
  const out = [
    check('database', 'ok', `SQLite file ${facts.location} (${sizeText(facts.sizeBytes)})`),
    facts.journalMode === 'wal'
      ? check('journal', 'ok', 'SQLite in WAL mode')
      : check('journal', 'warn', `SQLite journal mode is ${facts.journalMode}`, 'the database file may be on a filesystem without WAL support'),
    spaceCheck(facts),
  ];
  if (facts.integrity !== null) {
    out.push(facts.integrity === 'ok'
      ? check('integrity', 'ok', 'database integrity check passed')
      : check('integrity', 'error', `database integrity check failed: ${facts.integrity}`, 'stop the service, copy the database file aside and restore it from a backup'));
  }
  return out;
}

/** Free space is low below this share of the filesystem or below this many bytes. */
const LOW_SPACE_SHARE = 0.05;
const LOW_SPACE_BYTES = 100 * 1_048_576;

/**
 * Whether writes can land: an error while they are failing (it clears once one commits), a warning
 * on a read-only folder or when the filesystem is nearly full, before writes start to fail.
 */
function spaceCheck(facts: SqliteFacts): HealthCheck {
  const failure = facts.lastWriteFailure;
  if (failure) {
    return check('storage', 'error', `writes are failing: the last one failed at ${failure.at} (${failure.reason}) and none has succeeded since`,
      `free space on the filesystem of ${facts.location} or repair the disk (see the system log); writes resume by themselves, no restart needed`);
  }
  if (!facts.writable) {
    return check('storage', 'warn', 'the folder of the database is read-only: it can be inspected (doctor, audit verify), not served',
      'run agentd serve on a writable copy of the home, or remount the filesystem read-write');
  }
  const space = facts.space;
  if (!space) return check('storage', 'ok', 'free space of the filesystem unknown');
  const share = space.totalBytes > 0 ? space.freeBytes / space.totalBytes : 0;
  const free = `${sizeText(space.freeBytes)} free (${(share * 100).toFixed(1)} %) on the filesystem of the database`;
  if (share < LOW_SPACE_SHARE || space.freeBytes < LOW_SPACE_BYTES) {
    return check('storage', 'warn', `only ${free}`, 'free space or move the home (--home) to a larger disk: when it is full, writes are refused with 507');
  }
  return check('storage', 'ok', free);
}
