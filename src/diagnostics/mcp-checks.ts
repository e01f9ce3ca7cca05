import type { McpServerConfig } from '../config/schema.js';
import { reviewText, type McpServerStatus } from '../mcp/index.js';
import type { Check } from './types.js';

/**
 * One check per configured MCP server: connected or not, its tool count, the pinned digest, the
 * last error and, while a changed tool list awaits acceptance, how it changed. `statuses` is null
 * when the doctor reads the files without a running service, which alone knows the connections.
 */
export function mcpChecks(servers: readonly McpServerConfig[], statuses: McpServerStatus[] | null): Check[] {
  if (servers.length === 0) return [];
  if (statuses === null) {
    return [{ name: 'mcp', status: 'ok', summary: `${servers.length} MCP server(s) configured; the running service reports their connections` }];
  }
  return statuses.map(serverCheck);
}

function serverCheck(status: McpServerStatus): Check {
  const name = `mcp:${status.name}`;
  const pin = status.pinned_digest === null ? 'not pinned' : `pinned digest ${status.pinned_digest}`;
  const error = status.last_error === null ? '' : `; last error: ${status.last_error}`;
  if (status.state === 'manifest_changed' && status.manifest_review !== null) {
    const review = status.manifest_review;
    return {
      name, status: 'warn',
      summary: `${status.transport} server connected, its tools are disabled: the tool list changed from the pinned one (${status.manifest_change}); ${pin}; pending digest ${review.pending_digest}`,
      remediation: `review the change (detail), then apply the control mcp.accept_manifest with confirm accept-manifest:${status.name}:${review.pending_prefix}`,
      detail: reviewText(review),
    };
  }
  if (status.state === 'manifest_refused') {
    return {
      name, status: 'error',
      summary: `${status.transport} server connected, its tools are disabled: its tool list was refused whole (${status.manifest_refusal}); ${pin}`,
      remediation: 'fix the server so that it lists each tool once, named with 1-128 of A-Z a-z 0-9 _ - . (and no two names alike once dots read as __); it is judged again when it lists its tools next',
    };
  }
  if (status.connected) {
    return { name, status: status.last_error === null ? 'ok' : 'warn', summary: `${status.transport} server connected, ${status.tool_count} tool(s); ${pin}${error}` };
  }
  return {
    name, status: 'warn',
    summary: `${status.transport} server not connected (${status.state}), 0 tools; ${pin}${error}`,
    remediation: status.transport === 'http'
      ? 'check that the server is up and its host is in network.mcp_allowed_hosts; it is retried with back-off'
      : 'check the command, its arguments and env_allow; it is restarted with back-off',
  };
}
