import { CONFIRM_DIGEST_CHARS, reviewText, type McpServers, type McpServerStatus } from '../mcp/index.js';
import { quote } from '../scheduler/index.js';
import { ControlError } from './errors.js';
import type { Control, ControlTarget } from './types.js';

/**
 * `mcp.accept_manifest`: the operator has looked at how a server's tool list changed (diagnostics,
 * the controls list and the console show it tool by tool) and accepts that change as the new pin;
 * until then that server's tools stay withdrawn. The confirm string names the first hex digits of
 * the digest of the change reviewed, so a list the server swaps in after the review is never
 * accepted by it: it needs a review (and a confirm string) of its own.
 */
export function acceptManifestControl(mcp: McpServers): Control {
  const describe = (status: McpServerStatus): ControlTarget => {
    const review = status.state === 'manifest_changed' ? status.manifest_review : null;
    const available = review !== null;
    // Without a change pending the suffix is the pinned digest's (or "none"): the confirm string
    // of old, `accept-manifest:<server>`, matches no target.
    const digest = review?.pending_digest ?? status.pinned_digest ?? 'none';
    return {
      target: status.name,
      label: available ? `${status.name} (${status.manifest_change})` : status.name,
      state: status.state,
      available,
      reason: available ? null : `MCP server ${quote(status.name)} has no manifest change to accept (it is ${status.state})`,
      confirmSuffix: digest.slice(0, CONFIRM_DIGEST_CHARS),
      version: digest,
      detail: review === null ? null : reviewText(review),
    };
  };
  return {
    id: 'mcp.accept_manifest',
    label: 'Accept MCP manifest',
    description: 'Pins the tool list change an MCP server shows, as reviewed (the confirm string names its digest), and offers its tools again; until then a changed server\'s tools are withdrawn.',
    destructive: false,
    verb: 'accept-manifest',
    placeholder: 'server',
    suffixPlaceholder: `first ${CONFIRM_DIGEST_CHARS} hex of the pending digest`,
    targets: async () => mcp.statuses().map(describe),
    find: async (name) => {
      const status = mcp.status(name);
      if (!status) throw new ControlError('target_not_found', `no MCP server ${quote(name)}`);
      return describe(status);
    },
    apply: async ({ target, version }) => {
      const change = await mcp.acceptManifest(target, version ?? '');
      // The server may have changed its list again, or disconnected, since `find` saw the change.
      if (change === 'stale') {
        throw new ControlError('confirm_mismatch', `MCP server ${quote(target)} changed its tool list again since that review; review the change pending now and confirm its digest`);
      }
      if (!change) throw new ControlError('conflict', `MCP server ${quote(target)} has no manifest change to accept now`);
      return change;
    },
  };
}
