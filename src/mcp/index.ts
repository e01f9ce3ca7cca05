/** MCP tool servers: their connections, tools (`mcp.<server>.<tool>`) and pinned manifests. */
export { McpServers, type McpServersOptions } from './mcp-servers.js';
export type { McpServerState, McpServerStatus } from './server-connection.js';
export { mcpServerOf, mcpToolName } from './mcp-tools.js';
