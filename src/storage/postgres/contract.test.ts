import { afterAll, beforeAll, describe } from 'vitest';
import { createTestDatabase, postgresTestUrl, type TestDatabase } from '../../../test/helpers/postgres.js';
import { describeApprovalStore } from '../contract/approval-store.js';
import { describeAuditQuery } from '../contract/audit-query.js';
import { describeAuditStore } from '../contract/audit-store.js';
import { describeCostStore } from '../contract/cost-store.js';
import { describeInboxStore } from '../contract/inbox-store.js';
import { describeJobStore } from '../contract/job-store.js';
import { describeRunStore } from '../contract/run-store.js';
import { describeSessionClaimStore } from '../contract/session-claim-store.js';
import { describeSessionStore } from '../contract/session-store.js';
import { describeSettingsStore } from '../contract/settings-store.js';
import { describeTurnStore } from '../contract/turn-store.js';
import { describeWebSessionStore } from '../contract/web-session-store.js';
import { PostgresStorage, type PostgresStorageOptions } from './index.js';

/**
 * Every contract suite on PostgreSQL, in one database made for this file (migrated once, dropped
 * at the end). Each test starts from empty tables; `another()` opens a second storage (its own
 * pool) on the same database, as a second replica would.
 */
const TABLES = ['audit_events', 'turns', 'run_events', 'runs', 'costs', 'cost_sessions', 'cost_holds', 'channel_inbox', 'jobs', 'settings', 'api_sessions', 'web_sessions',
  'session_claims', 'approvals', 'channel_signatures'];

describe.skipIf(postgresTestUrl === null)('PostgreSQL backend', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    await (await PostgresStorage.open(database.url, { poolSize: 1 })).close();
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function openStorage<T>(pick: (storage: PostgresStorage) => T, options: PostgresStorageOptions = {}) {
    const opened = [new PostgresStorage(database.url, { poolSize: 4, ...options })];
    // DELETE rather than TRUNCATE: on a few rows it takes a millisecond, TRUNCATE a hundred.
    await opened[0]!.database.query(TABLES.map((table) => `DELETE FROM ${table}`).join('; '));
    return {
      store: pick(opened[0]!),
      another: () => {
        const storage = new PostgresStorage(database.url, { poolSize: 4, ...options });
        opened.push(storage);
        return pick(storage);
      },
      close: async () => {
        for (const storage of opened) await storage.close();
      },
    };
  }

  describeTurnStore('postgres', ({ now }) => openStorage((s) => s.turns, { now }));
  describeRunStore('postgres', () => openStorage((s) => s.runs));
  describeCostStore('postgres', () => openStorage((s) => s.costs));
  describeAuditStore('postgres', () => openStorage((s) => s.audit));
  describeAuditQuery('postgres', () => openStorage((s) => s.audit));
  describeInboxStore('postgres', async () => {
    const opened = await openStorage((s) => s);
    return { store: opened.store.inbox, audit: opened.store.audit, second: opened.another().inbox, close: opened.close };
  });
  describeJobStore('postgres', async () => {
    const opened = await openStorage((s) => s.jobs);
    return { ...opened, second: opened.another() };
  });
  describeSettingsStore('postgres', async () => {
    const opened = await openStorage((s) => s.settings);
    return { ...opened, reopen: async () => opened.another() };
  });
  describeSessionStore('postgres', async (options) => {
    const opened = await openStorage((s) => s.sessionStore(options));
    return { store: opened.store, close: opened.close };
  });
  describeApprovalStore('postgres', async () => {
    const opened = await openStorage((s) => s.approvals, { replicaId: 'replica-a' });
    const other = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-b' });
    return {
      store: opened.store, another: other.approvals,
      close: async () => {
        await other.close();
        await opened.close();
      },
    };
  }, { sharedByReplicas: true });
  describeSessionClaimStore('postgres', async () => {
    const opened = await openStorage((s) => s.sessionClaims, { replicaId: 'replica-a' });
    const other = new PostgresStorage(database.url, { poolSize: 2, replicaId: 'replica-b' });
    return {
      store: opened.store, owner: 'replica-a', other: other.sessionClaims,
      close: async () => {
        await other.close();
        await opened.close();
      },
    };
  }, { sharedByReplicas: true });
  describeWebSessionStore('postgres', async (options) => {
    const opened = await openStorage((s) => s.webSessionStore(options));
    return { store: opened.store, close: opened.close };
  });
});
