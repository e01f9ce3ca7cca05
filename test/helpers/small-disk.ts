import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqliteDatabase } from '../../src/storage/sqlite/database.js';
import { fillFilesystem, smallTmpfs, unmount } from './mounts.js';

/**
 * A home folder whose disk a test can fill and free again, with the service running on it.
 *
 * Where this process may mount (root, as on CI) it is an 8 MB tmpfs, and filling it takes its last
 * free byte: every write fails as on any full disk. Elsewhere it falls back to SQLite's own limit on
 * the database's size (`PRAGMA max_page_count`), past which the real engine answers SQLITE_FULL just
 * as on a full disk, but only to writes that need a new page: an update in place still lands.
 */
export interface SmallDisk {
  home: string;
  /** A real filesystem (every write fails when full), not the page limit. */
  real: boolean;
  /** `db` is the service's connection (`sqliteOf(app)`). */
  fill(db: SqliteDatabase): void;
  free(db: SqliteDatabase): void;
  /** Call after the service has closed. */
  remove(): void;
}

/** SQLite's default page limit, restored to "free" the page-limited disk. */
const DEFAULT_MAX_PAGES = 1_073_741_823;

export function smallDisk(): SmallDisk {
  const tmpfs = smallTmpfs('8m');
  if (tmpfs) {
    let filler: string | null = null;
    return {
      home: tmpfs,
      real: true,
      fill(db) {
        // An empty WAL: every commit from now on must grow it. A WAL that has been checkpointed is
        // otherwise written over from its start, and would take commits without a free byte.
        const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
        if (result?.busy !== 0) throw new Error('the WAL could not be emptied');
        filler = fillFilesystem(tmpfs);
      },
      free() {
        if (filler) rmSync(filler);
        filler = null;
      },
      remove() {
        unmount(tmpfs);
        rmSync(tmpfs, { recursive: true, force: true });
      },
    };
  }
  const home = mkdtempSync(join(tmpdir(), 'agentd-full-'));
  return {
    home,
    real: false,
    fill: (db) => db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`),
    free: (db) => db.pragma(`max_page_count = ${DEFAULT_MAX_PAGES}`),
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
