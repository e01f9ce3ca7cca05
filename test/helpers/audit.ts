import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from '../../src/audit/log.js';
import type { AuditEvent } from '../../src/storage/ports/audit.js';
import { rowToEvent, type AuditRow } from '../../src/storage/sqlite/audit-rows.js';
import { SqliteStorage } from '../../src/storage/sqlite/index.js';

export interface TempAudit {
  audit: AuditLog;
  storage: SqliteStorage;
  /** Folder of the database file. */
  dir: string;
  /** Stored events, oldest first (what is queued is committed first); optionally of one type. */
  events(type?: string): AuditEvent[];
  close(): Promise<void>;
}

/** A real audit log on a real SQLite file in a temporary folder. */
export function tempAudit(): TempAudit {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-audit-'));
  const storage = new SqliteStorage(join(dir, 'agentd.db'));
  return {
    audit: new AuditLog(storage.audit),
    storage,
    dir,
    events: (type) => storedEvents(storage, type),
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Stored audit events of a SQLite storage, after committing what is queued. */
export function storedEvents(storage: SqliteStorage, type?: string): AuditEvent[] {
  storage.uow.flush();
  const rows = storage.database.db.prepare('SELECT * FROM audit_events ORDER BY seq').all() as AuditRow[];
  return rows.map(rowToEvent).filter((event) => type === undefined || event.event_type === type);
}
