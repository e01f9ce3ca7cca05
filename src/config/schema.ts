import * as z from 'zod';
import { discordSchema } from './discord-schema.js';
import { mcpSchema } from './mcp-schema.js';

/**
 * The configuration file's schema. Every object is strict: an unknown key is a start-up error that
 * names it, because a misspelt security setting silently falling back to its default is worse than
 * refusing to start.
 */
const port = z.number().int().min(0).max(65535);

/**
 * A service URL with the scheme named. The message never repeats the value: a URL may carry a
 * password, and config errors are printed.
 */
const serviceUrl = (schemes: readonly string[]) =>
  z.string().refine((value) => {
    try {
      return schemes.includes(new URL(value).protocol.slice(0, -1));
    } catch {
      return false;
    }
  }, `a URL starting with ${schemes.map((scheme) => `${scheme}://`).join(' or ')}`);
const hostName = z.string().min(1);

const providerSchema = z
  .object({
    api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').nullable().default(null),
    model: z.string().min(1),
    base_url: z.url({ protocol: /^https?$/ }).nullable().default(null),
    /**
     * The longest answer a call may produce, sent with every request: what a budget holds for a
     * call's output (see `requestBound`), so a small `max_spend_usd` wants a small value here.
     */
    max_tokens: z.number().int().min(1).max(1_000_000).default(4096),
    /** USD per million tokens; overrides the built-in price table for this provider's model. */
    price: z
      .object({ input_per_mtok: z.number().min(0), output_per_mtok: z.number().min(0) })
      .strict()
      .nullable()
      .default(null),
  })
  .strict();

const restPolicySchema = z
  .object({
    host: z.string().min(1),
    method: z.string().regex(/^(\*|[A-Za-z]+)$/, 'an HTTP method or *'),
    path: z.string().min(1),
    action: z.enum(['allow', 'deny']),
  })
  .strict();

/**
 * Who may allow a request the policy refused: nobody (`off`), the terminal that started the
 * service, or an operator over the API and console. `true` is the older spelling of `terminal`.
 */
const approvalMode = z
  .union([z.boolean(), z.enum(['off', 'terminal', 'api'])])
  .default(false)
  .transform((mode) => (mode === true ? 'terminal' : mode === false ? 'off' : mode));

export type ApprovalMode = 'off' | 'terminal' | 'api';

export const PRESET_NAMES = ['anthropic', 'openai', 'ollama', 'github', 'discord'] as const;

export const configSchema = z
  .object({
    api: z
      .object({
        host: hostName.default('127.0.0.1'),
        port: port.default(8080),
        api_key: z.string().default(''),
        rate_limit_rpm: z.number().int().min(1).default(60),
        // Any positive length, so that expiry can be tried by hand; a short one is warned about at start.
        web_session_ttl_seconds: z.number().int().min(1).default(28800),
        cookie_name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _').default('service_operator_session'),
        trust_proxy: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    providers: z
      .object({
        default: z.string().min(1).default('offline'),
        // claude-sonnet-4-5 (the model named in the original design) reaches end of life on 2026-11-30.
        anthropic: providerSchema.prefault({ api_key_env: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-5' }),
        openai: providerSchema.prefault({ api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini' }),
      })
      .strict()
      .prefault({}),
    max_spend_usd: z.number().min(0).default(0),
    network: z
      .object({
        default_deny: z.boolean().default(true),
        presets: z.array(z.enum(PRESET_NAMES)).default([]),
        allowed_hosts: z.array(z.string().min(1)).default([]),
        allowed_domains: z.array(z.string().min(1)).default([]),
        allowed_cidrs: z.array(z.string().min(1)).default([]),
        provider_allowed_hosts: z.array(z.string().min(1)).default([]),
        tool_allowed_hosts: z.array(z.string().min(1)).default([]),
        discord_allowed_hosts: z.array(z.string().min(1)).default([]),
        /** Hosts of Streamable HTTP MCP servers (`mcp.servers[].url`), reached only through the gateway. */
        mcp_allowed_hosts: z.array(z.string().min(1)).default([]),
        rest_policies: z.array(restPolicySchema).default([]),
        interactive_approval: approvalMode,
      })
      .strict()
      .prefault({}),
    tools: z
      .object({
        /** Tools that wait for an operator's approval before each call (decided over the API). */
        require_approval: z.array(z.string().min(1).max(200)).max(1000).default([]),
        /**
         * What memory_search may read in a channel's run (a webhook sender's, a job's): `session`,
         * only that run's own session, whatever the model asks; `all`, every session. A webhook
         * sender writes the prompt, so `all` lets a sender read what API clients said. API runs
         * may always search every session.
         */
        memory_search_scope: z.enum(['session', 'all']).default('session'),
      })
      .strict()
      .prefault({}),
    /** How long a request waits for an operator's decision before it is denied (fail closed). */
    approval_timeout_seconds: z.number().int().min(1).max(86_400).default(300),
    /**
     * The secret approvals' `request_hash` is keyed with (HMAC-SHA256). Empty: the file
     * `approval-hash.key` in the home folder, made at first start. Replicas on one database set the
     * same value here, so that they digest a request alike.
     */
    approval_hash_key: z
      .string()
      .refine((key) => key === '' || key.length >= 32, 'empty, or at least 32 characters (e.g. openssl rand -hex 32)')
      .default(''),
    memory: z
      .object({ retention_days: z.number().int().min(0).default(0) })
      .strict()
      .prefault({}),
    /** Age limits of the tables that only grow; 0 keeps forever. */
    retention: z
      .object({
        runs_days: z.number().int().min(0).default(90),
        costs_days: z.number().int().min(0).default(90),
        audit_days: z.number().int().min(0).default(365),
      })
      .strict()
      .prefault({}),
    /**
     * Where the service keeps its data: the SQLite file in the home folder (one process), or
     * PostgreSQL shared by several replicas. The URLs can also come from DATABASE_URL and REDIS_URL.
     */
    storage: z
      .object({
        backend: z.enum(['sqlite', 'postgres']).default('sqlite'),
        postgres_url: serviceUrl(['postgres', 'postgresql']).nullable().default(null),
        /** Connections this replica opens at most; replicas × this must stay under the server's max_connections. */
        postgres_pool_size: z.number().int().min(1).max(200).default(10),
        redis_url: serviceUrl(['redis', 'rediss']).nullable().default(null),
        /**
         * Starts every key and channel the service uses in Redis: services (or test runs) sharing one
         * Redis each need their own, or they would share rate limits and hear each other's cancels.
         */
        redis_key_prefix: z.string().regex(/^[\x21-\x7e]{1,64}$/, '1 to 64 printable characters without spaces').default('agentd:'),
      })
      .strict()
      .prefault({}),
    webhook: z
      .object({
        enabled: z.boolean().default(false),
        host: hostName.default('127.0.0.1'),
        port: port.default(9090),
        secret: z.string().default(''),
        trust_proxy: z.boolean().default(false),
        // Per client IP, sliding 60 s window: 60 by default, like api.rate_limit_rpm (docs/webhook.md#limits).
        rate_limit_rpm: z.number().int().min(1).default(60),
        // Sign `<unix seconds>.<body>` and send the seconds in X-Service-Timestamp: a captured
        // request is refused once it is older than the tolerance, and within it is accepted once.
        require_timestamp: z.boolean().default(false),
        timestamp_tolerance_seconds: z.number().int().min(1).max(86_400).default(300),
      })
      .strict()
      .refine((webhook) => !webhook.require_timestamp || webhook.secret !== '', {
        message: 'webhook.require_timestamp needs webhook.secret: the timestamp is part of the signed payload',
        path: ['require_timestamp'],
      })
      .prefault({}),
    mcp: mcpSchema,
    discord: discordSchema,
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type NetworkConfig = Config['network'];
export type RestPolicyConfig = z.infer<typeof restPolicySchema>;
export type { McpServerConfig } from './mcp-schema.js';
export type { DiscordConfig } from './discord-schema.js';

/** JSON Schema of the config file, for editors (`agentd config schema`). */
export function configJsonSchema(): unknown {
  return z.toJSONSchema(configSchema, { io: 'input' });
}
