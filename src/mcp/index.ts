/** MCP tool servers: their connections, tools (`mcp.<server>.<tool>`) and pinned manifests. */
export { McpServers } from './mcp-servers.js';
export type { McpServersOptions } from './connections.js';
export type { AcceptOutcome, McpServerState, McpServerStatus } from './server-connection.js';
export { CONFIRM_DIGEST_CHARS, reviewText, type ManifestReview, type ToolChangeReview } from './manifest-review.js';
export { mcpServerOf, mcpToolName } from './mcp-tools.js';
