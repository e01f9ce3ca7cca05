import { Approvals, loadRequestHashKey, type RunApprovalEvents } from '../approvals/index.js';
import type { AuditLog } from '../audit/log.js';
import type { Config } from '../config/schema.js';
import { Gateway } from '../gateway/index.js';
import type { Logger } from '../log.js';
import { McpServers } from '../mcp/index.js';
import type { TurnStore } from '../storage/ports/turns.js';
import { createMemorySearchTool } from '../memory/memory-search-tool.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { NetworkPolicy } from '../policy/network-policy.js';
import { createProviderRegistry, DefaultProviderSetting, type GatewayClientFactory } from '../providers/index.js';
import { KnownSecrets } from '../security/secrets/known-secrets.js';
import type { Storage } from '../storage/ports/storage.js';
import { createToolRegistry, type ToolRegistry } from '../tools/index.js';
import type { LateBound } from './late-bound.js';
import type { LifecyclePart } from './lifecycle.js';

export interface GatewayInput {
  config: Config;
  env: NodeJS.ProcessEnv;
  home: string;
  log: Logger;
  now: () => number;
  policy: NetworkPolicy;
  storage: Storage;
  audit: AuditLog;
  metrics: ServiceMetrics;
  /** The runs, built after the approvals (they ask them): see `LateBound`. */
  runs: LateBound<RunApprovalEvents>;
  mcpBackoff?: { initialMs: number; maxMs: number };
}

/** Everything that reaches out: the gateway under the network policy, the approvals that may open it, providers, tools and MCP servers. */
export async function wireGateway({ config, env, home, log, now, policy, storage, audit, metrics, runs, mcpBackoff }: GatewayInput) {
  // An approval shows its request exactly, but never a secret the service itself holds; its hash
  // is keyed with the installation's secret, kept out of the database and the audit log.
  const hashKey = loadRequestHashKey(config.approval_hash_key, home);
  const knownSecrets = KnownSecrets.fromConfig(config, env, [{ name: 'approval hash key', value: hashKey.secret }]);
  // A run's approvals show on its status and stream; decisions may come from any replica.
  const approvals = new Approvals({
    store: storage.approvals, audit, log, now, timeoutMs: config.approval_timeout_seconds * 1000,
    toolsRequiringApproval: config.tools.require_approval,
    requestKeys: { hashKey: hashKey.key, secrets: knownSecrets },
    runs: {
      approvalRequested: (runId, payload) => runs.get().approvalRequested(runId, payload),
      approvalResolved: (runId, payload) => runs.get().approvalResolved(runId, payload),
    },
  });
  // Every outbound request of providers and tools goes through the gateway under this app's policy.
  const gateway = new Gateway({
    policy, audit, log,
    approval: config.network.interactive_approval === 'api' ? approvals.network : undefined, metrics,
  });
  const gatewayClientFactory: GatewayClientFactory = gateway.clientFactory;
  const providers = createProviderRegistry({ config, env, gatewayClientFactory, logger: log });
  // The default an operator chose with provider.set_default outlives restarts.
  const defaultSetting = new DefaultProviderSetting(providers, storage.settings, now);
  const restored = await defaultSetting.restore();
  if (restored) log[restored.level](restored.message);
  const tools = serviceTools(config, storage.turns, gatewayClientFactory);
  // MCP servers add their tools to the registry once connected and their manifests accepted.
  const mcp = await McpServers.create({
    servers: config.mcp.servers, env, gatewayClientFactory, settings: storage.settings, tools, audit, now, backoff: mcpBackoff,
  });
  const parts = {
    gateway: { name: 'gateway', stop: () => gateway.close() } satisfies LifecyclePart,
    // What still waits for a decision is denied; the next start records it as interrupted.
    approvals: { name: 'approvals', start: async () => {
        await approvals.recover();
      }, stop: () => approvals.stop() } satisfies LifecyclePart,
    // Child processes and connections start only when serving, so an app that is never served leaves none behind.
    mcp: { name: 'MCP servers', phase: 'listen', start: () => mcp.start(), stop: () => mcp.close() } satisfies LifecyclePart,
  };
  return { approvals, gateway, providers, defaultSetting, tools, mcp, hashKeySource: hashKey.source, parts };
}

/** The built-in tools and memory search, as the service registers them (MCP tools join later). */
export function serviceTools(config: Config, memory: TurnStore, gatewayClientFactory: GatewayClientFactory): ToolRegistry {
  return createToolRegistry({ gatewayClientFactory, extraTools: [createMemorySearchTool(memory, { channelScope: config.tools.memory_search_scope })] });
}
