import type { ChainReport } from '../audit/chain-status.js';
import type { AuditStats } from '../storage/ports/audit.js';
import type { LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { RedisHealth } from '../coordination/redis-health.js';
import type { TurnStore } from '../storage/ports/turns.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { Storage } from '../storage/ports/storage.js';
import type { StorageHealth } from '../storage/ports/health.js';
import type { JobRecord } from '../storage/ports/jobs.js';
import type { McpServerStatus } from '../mcp/index.js';
import type { ToolRegistry } from '../tools/index.js';
import type { ConnectionStatus } from '../channels/discord/gateway/connection.js';
import type { DiagnosticsInput, WebhookState } from './checks.js';

/** The parts of a running (or inspected) service the doctor looks at. */
export interface DiagnosticsParts {
  config: Config;
  home: string;
  configPath: string | null;
  apiKeyFromEnv: boolean;
  storage: { health(options?: { checkIntegrity?: boolean }): Promise<StorageHealth> };
  memory: TurnStore;
  /** Run the (slow) integrity check: `agentd doctor` does, the polled endpoint does not. */
  checkIntegrity?: boolean;
  providers: ProviderRegistry;
  tools: ToolRegistry;
  webhook: WebhookState | null;
  /** The stored jobs, and whether this process fires them (null: not a running service). */
  scheduler: { jobs(): Promise<Omit<JobRecord, 'task'>[]>; firing: boolean | null; now: number };
  /** `sessions` is read with the rest, once the store is known to be readable. */
  runtime: { uptimeSeconds: number; sessions: () => Promise<number>; runsInFlight: number };
  /** The audit log's size and the state of its chain (verified now, or the latest background verdict). */
  audit: { stats(): Promise<AuditStats>; chain(): Promise<ChainReport> };
  /** Measures the shared Redis; absent when `storage.redis_url` is not set. */
  redis?: () => Promise<RedisHealth>;
  /** Each MCP server's connection; absent when no service runs (`agentd doctor` on the files). */
  mcp?: () => McpServerStatus[];
  /** The Discord connection's status; absent when no service runs or the channel is off. */
  discord?: () => ConnectionStatus;
  /** Approvals waiting for a decision, newest first. */
  pendingApprovals: () => Promise<{ created_at: string }[]>;
  now?: () => number;
}

/**
 * The parts the running service's report and `agentd doctor`'s read alike, from the config and the
 * stores; the rest (webhook, scheduler, runtime, audit chain, Redis, MCP) each side knows its own way.
 */
export function storedDiagnosticsParts(
  loaded: Pick<LoadedConfig, 'config' | 'home' | 'configPath' | 'apiKeyFromEnv'>, storage: Storage,
): Pick<DiagnosticsParts, 'config' | 'home' | 'configPath' | 'apiKeyFromEnv' | 'storage' | 'memory' | 'pendingApprovals'> {
  return {
    config: loaded.config, home: loaded.home, configPath: loaded.configPath || null, apiKeyFromEnv: loaded.apiKeyFromEnv,
    storage, memory: storage.turns,
    pendingApprovals: () => storage.approvals.list({ pendingOnly: true, limit: 100 }),
  };
}

/**
 * Read-only facts for `runDiagnostics`, gathered the same way by the API and by `agentd doctor`;
 * `storage` is the health `diagnose` has already read.
 */
export async function collectDiagnosticsInput(parts: DiagnosticsParts, storage: StorageHealth): Promise<DiagnosticsInput> {
  const { providers } = parts;
  const [turnCount, jobs, auditStats, chain, redis, sessions, pending] = await Promise.all([
    parts.memory.count(), parts.scheduler.jobs(), parts.audit.stats(), parts.audit.chain(), parts.redis?.() ?? null, parts.runtime.sessions(),
    parts.pendingApprovals(),
  ]);
  return {
    config: parts.config,
    home: parts.home,
    configPath: parts.configPath,
    apiKeyFromEnv: parts.apiKeyFromEnv,
    providers: providers.list().map((info) => ({ ...info, reason: providers.get(info.name)?.unavailableReason() ?? null })),
    tools: parts.tools.list().map((t) => t.name),
    memory: { turnCount },
    storage,
    webhook: parts.webhook,
    scheduler: { jobs, firing: parts.scheduler.firing, now: parts.scheduler.now },
    runtime: { nodeVersion: process.version, ...parts.runtime, sessions },
    stdinIsTty: Boolean(process.stdin.isTTY),
    audit: { stats: auditStats, chain, retentionDays: parts.config.retention.audit_days, now: (parts.now ?? Date.now)() },
    redis,
    mcp: parts.mcp?.() ?? null,
    discord: parts.discord?.() ?? null,
    approvals: { pending: pending.length, oldestCreatedAt: pending.at(-1)?.created_at ?? null },
  };
}
