import { isAbsolute } from 'node:path';
import * as z from 'zod';

/**
 * `mcp.servers`: the MCP tool servers the agent may use. A server is reached either over Streamable
 * HTTP (`url`, through the gateway under `network.mcp_allowed_hosts`) or as a child process
 * (`command`, run without a shell and with only the `env_allow` variables).
 */
const environmentName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

const mcpServerSchema = z
  .object({
    // Part of the tool names (`mcp.<server>.<tool>`, `mcp__<server>__<tool>` for providers), whose
    // alphabet and 64-character limit the providers set.
    name: z.string().regex(/^[A-Za-z0-9-]{1,24}$/, '1-24 letters, digits or -'),
    url: z.url({ protocol: /^https?$/ }).nullable().default(null),
    // An absolute path: a bare name would be looked up in PATH, which the operator does not see in the config.
    command: z.string().refine((path) => isAbsolute(path), 'an absolute path').nullable().default(null),
    args: z.array(z.string()).default([]),
    env_allow: z.array(environmentName).default([]),
    /** The server's tools the agent may use; empty allows all of them. */
    allowed_tools: z.array(z.string().min(1)).default([]),
    /** Keep the digest of the tool list and disable the tools when it changes, until accepted. */
    pin: z.boolean().default(true),
  })
  .strict()
  .refine((server) => (server.url === null) !== (server.command === null), {
    message: 'exactly one of url or command',
    path: ['url'],
  })
  .refine((server) => server.url === null || (server.args.length === 0 && server.env_allow.length === 0), {
    message: 'args and env_allow apply only to a command',
    path: ['args'],
  });

export const mcpSchema = z
  .object({
    servers: z
      .array(mcpServerSchema)
      .default([])
      .refine((servers) => new Set(servers.map((server) => server.name)).size === servers.length, 'server names must be unique'),
  })
  .strict()
  .prefault({});

export type McpServerConfig = z.infer<typeof mcpServerSchema>;
