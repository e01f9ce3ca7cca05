import type { AuditSink } from '../storage/ports/audit.js';
import type { McpServerConfig } from '../config/schema.js';
import type { GatewayClientFactory } from '../contracts/gateway-port.js';
import type { SettingsStore } from '../storage/ports/settings.js';
import type { ToolRegistry } from '../tools/registry.js';
import { ManifestPins } from './manifest-pins.js';
import { ServerConnection, type AcceptOutcome, type BackoffLimits, type McpServerStatus } from './server-connection.js';
import { httpTransport, stdioTransport } from './transports.js';

export interface McpServersOptions {
  servers: readonly McpServerConfig[];
  /** The service's environment; a stdio server gets only its `env_allow` names from it. */
  env: NodeJS.ProcessEnv;
  gatewayClientFactory: GatewayClientFactory;
  settings: SettingsStore;
  tools: ToolRegistry;
  audit: AuditSink;
  now: () => number;
  /** Delay before reconnecting a server, doubled per failure (default 1 s up to 60 s; tests shorten it). */
  backoff?: BackoffLimits;
}

const DEFAULT_BACKOFF: BackoffLimits = { initialMs: 1_000, maxMs: 60_000 };

/** The configured MCP servers (`mcp.servers`): their connections, statuses and manifest pins. */
export class McpServers {
  private readonly connections = new Map<string, ServerConnection>();

  constructor(options: McpServersOptions) {
    const pins = new ManifestPins(options.settings, options.now);
    for (const config of options.servers) {
      const open = () => config.url !== null
        ? httpTransport({ ...config, url: config.url }, options.gatewayClientFactory)
        : stdioTransport({ ...config, command: config.command! }, options.env);
      this.connections.set(config.name, new ServerConnection({
        config, open, pins, tools: options.tools, audit: options.audit, now: options.now, backoff: options.backoff ?? DEFAULT_BACKOFF,
      }));
    }
  }

  /** Connects every server in the background; their tools appear in the registry as they are accepted. */
  start(): void {
    for (const connection of this.connections.values()) connection.start();
  }

  statuses(): McpServerStatus[] {
    return [...this.connections.values()].map((connection) => connection.status());
  }

  status(name: string): McpServerStatus | null {
    return this.connections.get(name)?.status() ?? null;
  }

  /**
   * Pins the change the operator reviewed, named by its full pending digest, and offers its tools
   * (control `mcp.accept_manifest`); `stale` when another change is pending now, null when the
   * server is unknown or has no change pending.
   */
  async acceptManifest(name: string, reviewedDigest: string): Promise<AcceptOutcome> {
    return (await this.connections.get(name)?.accept(reviewedDigest)) ?? null;
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }
}
