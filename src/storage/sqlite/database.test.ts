import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a database migrated by a newer agentd', () => {
  it('is refused, writable or read-only, naming both schema versions and what to do', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-schema-'));
    const file = join(dir, 'agentd.db');
    const latest = Math.max(...MIGRATIONS.map((m) => m.version));
    const newer = new Database(file);
    newer.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(latest + 1, 'from_the_future', new Date().toISOString());
    newer.close();

    const message = `it was migrated by a newer agentd (schema version ${latest + 1}; this agentd knows up to ${latest}): upgrade agentd, or restore a backup taken before the upgrade`;
    expect(() => new Database(file)).toThrow(message);
    expect(() => new Database(file, undefined, { readonly: true })).toThrow(message);
  });

  it('is told apart from one of this version, which opens again', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-schema-'));
    const file = join(dir, 'agentd.db');
    new Database(file).close();
    const again = new Database(file);
    expect(again.db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: MIGRATIONS.length });
    again.close();
  });
});
