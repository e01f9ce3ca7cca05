import type { McpServersOptions } from './connections.js';
import type { AcceptOutcome, McpServerStatus, ServerConnection } from './server-connection.js';

/** The configured MCP servers (`mcp.servers`): their connections, statuses and manifest pins. */
export class McpServers {
  /**
   * The MCP client library is loaded only when `mcp.servers` names a server: a service without
   * one starts without it.
   */
  static async create(options: McpServersOptions): Promise<McpServers> {
    if (options.servers.length === 0) return new McpServers(new Map());
    const { serverConnections } = await import('./connections.js');
    return new McpServers(serverConnections(options));
  }

  private constructor(private readonly connections: ReadonlyMap<string, ServerConnection>) {}

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
