import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeApprovalStore } from '../contract/approval-store.js';
import { describeAuditQuery } from '../contract/audit-query.js';
import { describeAuditStore } from '../contract/audit-store.js';
import { describeCostStore } from '../contract/cost-store.js';
import { describeInboxStore } from '../contract/inbox-store.js';
import { describeJobStore } from '../contract/job-store.js';
import { describeRunStore } from '../contract/run-store.js';
import { describeSessionClaimStore } from '../contract/session-claim-store.js';
import { describeSettingsStore } from '../contract/settings-store.js';
import { describeTurnStore } from '../contract/turn-store.js';
import { describeWebSessionStore } from '../contract/web-session-store.js';
import { SqliteStorage, type SqliteStorageOptions } from './index.js';

/**
 * A fresh SqliteStorage on a file in its own temporary folder, removed on close; `another()` opens
 * one more connection to the same file (closed with it).
 */
function openStorage<T>(pick: (storage: SqliteStorage) => T, options: SqliteStorageOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-contract-'));
  const file = join(dir, 'agentd.db');
  const opened = [new SqliteStorage(file, options)];
  return {
    store: pick(opened[0]!),
    another: () => {
      const storage = new SqliteStorage(file, options);
      opened.push(storage);
      return pick(storage);
    },
    close: async () => {
      for (const storage of opened) await storage.close();
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
describeInboxStore('sqlite', async () => {
  const opened = openStorage((s) => s);
  return { store: opened.store.inbox, audit: opened.store.audit, second: opened.another().inbox, close: opened.close };
});
describeJobStore('sqlite', async () => {
  const opened = openStorage((s) => s.jobs);
  return { ...opened, second: opened.another() };
});
describeSettingsStore('sqlite', async () => {
  const opened = openStorage((s) => s.settings);
  return { ...opened, reopen: async () => opened.another() };
});
describeSessionClaimStore('sqlite', async () => {
  const opened = openStorage((s) => s.sessionClaims);
  return { store: opened.store, owner: 'local', close: opened.close };
}, { sharedByReplicas: false });
describeApprovalStore('sqlite', async () => {
  const opened = openStorage((s) => s.approvals);
  return { store: opened.store, close: opened.close };
}, { sharedByReplicas: false });
describeWebSessionStore('sqlite', async (options) => openStorage((s) => s.webSessionStore(options)));
