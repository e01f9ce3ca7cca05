import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { AuditLog } from '../audit/log.js';
import { parseConfig } from '../config/load.js';
import { createMemoryLogger } from '../log.js';
import { createProviderRegistry } from '../providers/index.js';
import { InMemorySessionStore } from '../storage/shared/memory-session-store.js';
import { SqliteStorage } from '../storage/sqlite/index.js';
import { ToolRegistry } from '../tools/index.js';
import { AgentError } from '../contracts/agent-errors.js';
import { AgentRuntime } from './runtime.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('answers a session store with every session busy as its capacity error (503 at the API)', async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-capacity-'));
  const storage = new SqliteStorage(join(dir, 'agentd.db'));
  const config = parseConfig({});
  const providers = createProviderRegistry({ config, env: {}, gatewayClientFactory: () => { throw new Error('no requests'); } });
  const agent = new AgentRuntime({
    memory: storage.turns, runs: storage.runs, costs: storage.costs, claims: storage.sessionClaims,
    sessions: new InMemorySessionStore({ max: 1, isBusy: () => true }), tools: new ToolRegistry(), providers,
    audit: new AuditLog(storage.audit), config, log: createMemoryLogger(), now: Date.now,
  });
  try {
    await agent.createSession();
    const refused = await agent.createSession().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AgentError);
    expect(refused).toMatchObject({ code: 'capacity', message: 'all 1 API sessions are busy; try again when a run has finished' });
  } finally {
    await agent.close();
    await storage.close();
  }
});
