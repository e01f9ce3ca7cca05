import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load.js';
import type { McpServerStatus } from '../mcp/index.js';
import { mcpChecks } from './mcp-checks.js';

const servers = parseConfig({ mcp: { servers: [{ name: 'notes', command: '/usr/bin/notes' }, { name: 'web', url: 'http://127.0.0.1:9/mcp' }] } }).mcp.servers;

const status = (overrides: Partial<McpServerStatus>): McpServerStatus => ({
  name: 'notes', transport: 'stdio', state: 'connected', connected: true, tool_count: 2, last_error: null, pinned_digest: 'abc', manifest_change: null, manifest_review: null, manifest_refusal: null, ...overrides,
});

describe('mcpChecks', () => {
  it('adds nothing without servers, and one summary when no service runs', () => {
    expect(mcpChecks([], null)).toEqual([]);
    expect(mcpChecks(servers, null)).toEqual([{ name: 'mcp', status: 'ok', summary: '2 MCP server(s) configured; the running service reports their connections' }]);
  });

  it('shows each server: connected with its tools and pin, a changed manifest with its diff, a lost one with its last error', () => {
    const checks = mcpChecks(servers, [
      status({}),
      status({
        name: 'web', transport: 'http', state: 'manifest_changed', tool_count: 0, manifest_change: '1 changed (add)',
        manifest_review: { pinned_digest: 'abc', pending_digest: 'f00dfeedbeef0123', pending_prefix: 'f00dfeedbeef', tools: [{ name: 'add', change: 'changed', diff: '  description:\n    - Adds\n    + Adds and mails' }] },
      }),
      status({ name: 'dup', state: 'manifest_refused', tool_count: 0, manifest_refusal: 'the server lists two tools named "add"', last_error: 'tool list refused: the server lists two tools named "add"' }),
      status({ name: 'gone', state: 'disconnected', connected: false, tool_count: 0, last_error: 'server ended: boom' }),
    ]);
    expect(checks).toEqual([
      { name: 'mcp:notes', status: 'ok', summary: 'stdio server connected, 2 tool(s); pinned digest abc' },
      {
        name: 'mcp:web', status: 'warn',
        summary: 'http server connected, its tools are disabled: the tool list changed from the pinned one (1 changed (add)); pinned digest abc; pending digest f00dfeedbeef0123',
        remediation: 'review the change (detail), then apply the control mcp.accept_manifest with confirm accept-manifest:web:f00dfeedbeef',
        detail: 'pending digest f00dfeedbeef0123 (pinned abc)\n\nchanged tool "add":\n  description:\n    - Adds\n    + Adds and mails',
      },
      {
        name: 'mcp:dup', status: 'error',
        summary: 'stdio server connected, its tools are disabled: its tool list was refused whole (the server lists two tools named "add"); pinned digest abc',
        remediation: expect.stringContaining('lists each tool once'),
      },
      {
        name: 'mcp:gone', status: 'warn', summary: 'stdio server not connected (disconnected), 0 tools; pinned digest abc; last error: server ended: boom',
        remediation: 'check the command, its arguments and env_allow; it is restarted with back-off',
      },
    ]);
  });
});
