import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStorage } from './index.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('cost holds at open', () => {
  it('drops the holds a stopped process left behind', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-holds-'));
    const file = join(dir, 'agentd.db');
    const first = new SqliteStorage(file);
    const reserved = await first.costs.reserve({ session_id: 's1', amount_usd: 0.5, cap_usd: 10, now: '2026-01-01T00:00:00.000Z', expires_at: '2999-01-01T00:00:00.000Z' });
    expect(reserved.granted).toBe(true);
    await first.close();
    const second = new SqliteStorage(file);
    expect(second.database.db.prepare('SELECT count(*) FROM cost_holds').pluck().get()).toBe(0);
    await second.close();
  });

  it('writes nothing to the file when there is none to drop', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-holds-'));
    const file = join(dir, 'agentd.db');
    await new SqliteStorage(file).close(); // creates and migrates the file; the close folds the WAL in
    const reopened = new SqliteStorage(file);
    expect(statSync(`${file}-wal`).size).toBe(0);
    await reopened.close();
  });
});
