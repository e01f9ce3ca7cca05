import { AgentRuntime } from '../../src/agent/runtime.js';
import { AuditLog } from '../../src/audit/log.js';
import type { AuditEvent } from '../../src/storage/ports/audit.js';
import { parseConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { createMemoryLogger } from '../../src/log.js';
import { createMemorySearchTool } from '../../src/memory/memory-search-tool.js';
import { createProviderRegistry, type GatewayClientFactory } from '../../src/providers/index.js';
import { Scheduler } from '../../src/scheduler/index.js';
import { InMemorySessionStore } from '../../src/storage/shared/memory-session-store.js';
import { SqliteStorage } from '../../src/storage/sqlite/index.js';
import { createCalculatorTool, createCurrentTimeTool, ToolRegistry, type ToolDefinition } from '../../src/tools/index.js';
import { storedEvents } from './audit.js';

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public ms: number) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
}

export interface SchedulerHarnessOptions {
  /** The SQLite file with the jobs, runs, turns and costs (several harnesses may share it). */
  file: string;
  /** Where this harness's audit events go; default the shared file (one writer at a time). */
  auditFile?: string;
  /** A `TestClock`, or any clock (real time with a skew the test moves, for the runner's own loop). */
  clock: { now: () => number };
  config?: ConfigInput;
  env?: Record<string, string>;
  /** Tools in place of the built-in ones with the same names (a tool that blocks). */
  tools?: ToolDefinition[];
}

export interface SchedulerHarness {
  storage: SqliteStorage;
  agent: AgentRuntime;
  scheduler: Scheduler;
  log: ReturnType<typeof createMemoryLogger>;
  /** Audit events this harness stored, optionally of one type. */
  events(type?: string): AuditEvent[];
  /** Stops firing, closes the runtime (ending its runs) and the database: what `app.close()` does. */
  close(): Promise<void>;
}

const noRequests: GatewayClientFactory = () => {
  throw new Error('scheduler tests send no requests');
};

/**
 * The scheduler wired to a real agent runtime on a real SQLite file, as `app.ts` wires it, with a
 * clock the test drives: passes run when the test calls `scheduler.runner.tick()`.
 */
export async function schedulerHarness(options: SchedulerHarnessOptions): Promise<SchedulerHarness> {
  const now = options.clock.now;
  const storage = new SqliteStorage(options.file, { now });
  const auditStorage = options.auditFile ? new SqliteStorage(options.auditFile, { now }) : storage;
  const audit = new AuditLog(auditStorage.audit, now);
  const config = parseConfig(options.config ?? {});
  const log = createMemoryLogger();
  const providers = createProviderRegistry({ config, env: options.env ?? {}, gatewayClientFactory: noRequests });
  const tools = new ToolRegistry();
  for (const tool of [...(options.tools ?? []), createCurrentTimeTool(), createCalculatorTool(), createMemorySearchTool(storage.turns)]) {
    if (!tools.has(tool.name)) tools.register(tool);
  }
  const agent = new AgentRuntime({
    memory: storage.turns, runs: storage.runs, costs: storage.costs, sessions: new InMemorySessionStore({ now }), tools, providers,
    audit, config, log, now, shutdownGraceMs: 200, claims: storage.sessionClaims,
  });
  await agent.start();
  const scheduler = new Scheduler({
    store: storage.jobs, runs: agent, audit, log, now, checkProvider: (name) => void providers.resolve(name),
  });
  return {
    storage,
    agent,
    scheduler,
    log,
    events: (type) => storedEvents(auditStorage, type),
    close: async () => {
      await scheduler.runner.stop();
      await agent.close();
      await scheduler.runner.drain();
      await storage.close();
      if (auditStorage !== storage) await auditStorage.close();
    },
  };
}
