import type { AuditSink } from '../storage/ports/audit.js';
import type { McpServerConfig } from '../config/schema.js';
import type { GatewayClientFactory } from '../contracts/gateway-port.js';
import type { SettingsStore } from '../storage/ports/settings.js';
import type { ToolRegistry } from '../tools/registry.js';
import { ManifestPins } from './manifest-pins.js';
import { ServerConnection, type BackoffLimits } from './server-connection.js';
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

/** One connection per configured server, by name; nothing connects before `start()`. */
export function serverConnections(options: McpServersOptions): Map<string, ServerConnection> {
  const connections = new Map<string, ServerConnection>();
  const pins = new ManifestPins(options.settings, options.now);
  for (const config of options.servers) {
    const open = () => config.url !== null
      ? httpTransport({ ...config, url: config.url }, options.gatewayClientFactory)
      : stdioTransport({ ...config, command: config.command! }, options.env);
    connections.set(config.name, new ServerConnection({
      config, open, pins, tools: options.tools, audit: options.audit, now: options.now, backoff: options.backoff ?? DEFAULT_BACKOFF,
    }));
  }
  return connections;
}
