import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeAuditQuery } from '../contract/audit-query.js';
import { describeAuditStore } from '../contract/audit-store.js';
import { describeCostStore } from '../contract/cost-store.js';
import { describeInboxStore } from '../contract/inbox-store.js';
import { describeRunStore } from '../contract/run-store.js';
import { describeTurnStore } from '../contract/turn-store.js';
import { SqliteStorage, type SqliteStorageOptions } from './index.js';

/** A fresh SqliteStorage on a file in its own temporary folder, removed on close. */
function openStorage<T>(pick: (storage: SqliteStorage) => T, options: SqliteStorageOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-contract-'));
  const storage = new SqliteStorage(join(dir, 'agentd.db'), options);
  return {
    store: pick(storage),
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeTurnStore('sqlite', async ({ now }) => openStorage((s) => s.turns, { now }));
describeRunStore('sqlite', async () => openStorage((s) => s.runs));
describeCostStore('sqlite', async () => openStorage((s) => s.costs));
describeAuditStore('sqlite', async () => openStorage((s) => s.audit));
describeAuditQuery('sqlite', async () => {
  const opened = openStorage((s) => s.audit);
  return { ...opened, settle: async () => void opened.store.search.catchUp() };
});
describeInboxStore('sqlite', async () => openStorage((s) => s.inbox));
