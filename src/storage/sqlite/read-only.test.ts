import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Database } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-readonly-db-'));
  file = join(dir, 'agentd.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a database opened read-only', () => {
  it('reads what a writer beside it commits, and writes nothing itself', () => {
    const writer = new Database(file);
    const reader = new Database(file, MIGRATIONS, { readonly: true });
    try {
      writer.db.exec("CREATE TABLE note (v TEXT); INSERT INTO note VALUES ('committed')");
      expect(reader.db.prepare('SELECT v FROM note').pluck().all()).toEqual(['committed']);
      expect(() => reader.db.prepare('DELETE FROM note').run()).toThrow(/readonly/);
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('is refused, saying how to upgrade it, when it lacks a migration (none is applied)', () => {
    new Database(file, MIGRATIONS.slice(0, -1)).close();
    const last = MIGRATIONS.at(-1)!.version;
    expect(() => new Database(file, MIGRATIONS, { readonly: true })).toThrow(`it lacks schema version ${last}); start agentd serve on it once`);
    const writable = new Database(file, MIGRATIONS.slice(0, -1));
    expect(writable.db.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.at(-2)!.version);
    writable.close();
  });

  it('creates no file where there is none', () => {
    expect(() => new Database(file, MIGRATIONS, { readonly: true })).toThrow();
    expect(existsSync(file)).toBe(false);
  });
});
