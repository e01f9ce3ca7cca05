import type { AgentRuntime } from '../agent/runtime.js';
import { ChainStatus } from '../audit/chain-status.js';
import type { AuditLog } from '../audit/log.js';
import type { WebhookService } from '../channels/webhook-service.js';
import type { ConnectionStatus } from '../channels/discord/gateway/connection.js';
import type { LoadedConfig } from '../config/load.js';
import type { RedisCoordination } from '../coordination/redis-coordination.js';
import { diagnose, storedDiagnosticsParts, type DiagnosticsReport } from '../diagnostics/index.js';
import type { McpServers } from '../mcp/index.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { Scheduler } from '../scheduler/index.js';
import type { Storage } from '../storage/ports/storage.js';
import type { ToolRegistry } from '../tools/index.js';

/**
 * Where the REST listener is bound: empty until `listen()` binds it (its start fills this in). The
 * report, built before, reads it when asked, and so do `App.url` and `App.port`.
 */
export interface ListenAddress {
  url: string;
  port: number;
}

export interface LiveDiagnosticsInput {
  loaded: LoadedConfig;
  address: ListenAddress;
  now: () => number;
  startedAt: number;
  storage: Storage;
  coordination: RedisCoordination | null;
  audit: AuditLog;
  providers: ProviderRegistry;
  tools: ToolRegistry;
  agent: AgentRuntime;
  sessions: { count(): Promise<number> };
  scheduler: Scheduler;
  webhook: WebhookService | null;
  mcp: McpServers;
  discord: { status(): ConnectionStatus } | null;
}

/** The running service's doctor report (`GET /api/v1/diagnostics`, and `agentd doctor` asks it when it runs). */
export function liveDiagnostics(input: LiveDiagnosticsInput): () => Promise<DiagnosticsReport> {
  const { loaded, address, now, storage, coordination, audit, scheduler, agent, sessions, webhook, mcp, discord } = input;
  const { config } = loaded;
  const chain = new ChainStatus(() => audit.verify(), { now });
  return () =>
    diagnose({
      ...storedDiagnosticsParts(loaded, storage),
      // Once listening, the bound port (not the configured 0) is what is reported.
      config: address.port === 0 ? config : { ...config, api: { ...config.api, port: address.port } },
      providers: input.providers, tools: input.tools,
      webhook: webhook?.state() ?? null,
      scheduler: { jobs: () => scheduler.all(), firing: scheduler.runner.firing, now: now() },
      runtime: { uptimeSeconds: Math.round((now() - input.startedAt) / 1000), sessions: () => sessions.count(), runsInFlight: agent.inFlight },
      audit: { stats: () => audit.stats(), chain: () => chain.current() }, now,
      redis: coordination ? () => coordination.health() : undefined,
      mcp: () => mcp.statuses(),
      discord: discord ? () => discord.status() : undefined,
    });
}
