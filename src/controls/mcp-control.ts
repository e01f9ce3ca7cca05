import type { McpServers, McpServerStatus } from '../mcp/index.js';
import { quote } from '../scheduler/index.js';
import { ControlError } from './errors.js';
import type { Control, ControlTarget } from './types.js';

/**
 * `mcp.accept_manifest`: the operator has looked at how a server's tool list changed (diagnostics
 * show the diff) and accepts it as the new pin; until then that server's tools stay withdrawn.
 */
export function acceptManifestControl(mcp: McpServers): Control {
  const describe = (status: McpServerStatus): ControlTarget => {
    const available = status.state === 'manifest_changed';
    return {
      target: status.name,
      label: available ? `${status.name} (${status.manifest_change})` : status.name,
      state: status.state,
      available,
      reason: available ? null : `MCP server ${quote(status.name)} has no manifest change to accept (it is ${status.state})`,
    };
  };
  return {
    id: 'mcp.accept_manifest',
    label: 'Accept MCP manifest',
    description: 'Pins the tool list an MCP server now shows and offers its tools again; until then a changed server\'s tools are withdrawn.',
    destructive: false,
    verb: 'accept-manifest',
    placeholder: 'server',
    targets: async () => mcp.statuses().map(describe),
    find: async (name) => {
      const status = mcp.status(name);
      if (!status) throw new ControlError('target_not_found', `no MCP server ${quote(name)}`);
      return describe(status);
    },
    apply: async (name) => {
      const change = await mcp.acceptManifest(name);
      // The server may have disconnected since `find` saw the change; it is judged again on reconnect.
      if (!change) throw new ControlError('conflict', `MCP server ${quote(name)} has no manifest change to accept now`);
      return change;
    },
  };
}
