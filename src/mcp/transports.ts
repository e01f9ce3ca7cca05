import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerConfig } from '../config/schema.js';
import type { GatewayClientFactory } from '../contracts/gateway-port.js';
import type { OpenedTransport } from './server-connection.js';
import { ScrubbedStdioTransport } from './stdio-transport.js';

/** A request to an HTTP MCP server (a tool call included) may take this long, body read. */
const HTTP_TIMEOUT_MS = 120_000;

/**
 * A Streamable HTTP transport whose every request goes through the gateway under category `mcp`:
 * `network.mcp_allowed_hosts` and the REST rules decide, and each request is audited. The
 * long-lived GET stream for server-initiated messages is declined here, as a server without one
 * would (405): it would outlive the gateway's request deadline, and the tool list is read at connect.
 */
export function httpTransport(config: McpServerConfig & { url: string }, clientFactory: GatewayClientFactory): OpenedTransport {
  const client = clientFactory({ sessionId: null, taskId: null, timeout: HTTP_TIMEOUT_MS, category: 'mcp' });
  const transport = new StreamableHTTPClientTransport(new URL(config.url), {
    fetch: async (input, init) => {
      if ((init?.method ?? 'GET').toUpperCase() === 'GET') return new Response(null, { status: 405 });
      return client.fetch(input, init);
    },
  });
  const close = transport.close.bind(transport);
  transport.close = async () => {
    await close();
    await client.close();
  };
  return { transport };
}

/** The child gets only the `env_allow` variables that are set in the service's environment. */
export function stdioTransport(config: McpServerConfig & { command: string }, env: NodeJS.ProcessEnv): OpenedTransport {
  // `Object.fromEntries` defines each name as an own property; `env_allow: [__proto__]` (a valid
  // variable name) would otherwise be assigned through the prototype setter and silently dropped.
  const allowed: Record<string, string> = Object.fromEntries(
    config.env_allow.flatMap((name) => (Object.hasOwn(env, name) && env[name] !== undefined ? [[name, env[name]!]] : [])),
  );
  const transport = new ScrubbedStdioTransport({ command: config.command, args: config.args, env: allowed });
  return { transport, stderrTail: () => transport.stderrTail };
}
