import { storageBackend } from './storage/registry.js';
import { join } from 'node:path';
import { AgentRuntime } from './agent/runtime.js';
import { Approvals, type RunApprovalEvents } from './approvals/index.js';
import { AuditLog } from './audit/log.js';
import type { WebhookService } from './channels/webhook-service.js';
import type { DiscordService } from './channels/discord/service.js';
import { logStartupChecks, startupChecks, type DiagnosticsReport } from './diagnostics/index.js';
import { applyStorageEnv, loadConfig, parseConfig, resolveHome, type LoadedConfig } from './config/load.js';
import type { Config, ConfigInput } from './config/schema.js';
import { Gateway } from './gateway/index.js';
import { ServiceMetrics } from './metrics/index.js';
import { createHttpServer } from './http/server.js';
import { createLogger, type Logger } from './log.js';
import type { TurnStore } from './storage/ports/turns.js';
import { McpServers } from './mcp/index.js';
import { NetworkPolicy } from './policy/network-policy.js';
import type { ProviderRegistry } from './providers/index.js';
import { Scheduler } from './scheduler/index.js';
import type { ToolRegistry } from './tools/index.js';
import type { Storage } from './storage/ports/storage.js';
import { PACKAGE_ROOT, VERSION } from './version.js';
import { loadConsoleAssets } from './console/assets.js';
import { wireAgent } from './app/agent.js';
import { wireChannels } from './app/channels.js';
import type { LeasedConnection } from './channels/discord/gateway/lease.js';
import { liveDiagnostics, type ListenAddress } from './app/diagnostics.js';
import { wireGateway } from './app/gateway.js';
import { wireHttp } from './app/http.js';
import { LateBound } from './app/late-bound.js';
import { Lifecycle } from './app/lifecycle.js';
import { wireScheduler } from './app/scheduler.js';
import { openStores, retentionPart, type Stores } from './app/storage.js';

export interface CreateAppOptions {
  /** Home folder (database, config). Default `$AGENTD_HOME` or `~/.agentd`. */
  home?: string;
  /** Config file; default `<home>/config.yaml`. Ignored when `config` is given. */
  configPath?: string;
  /** In-memory configuration instead of a file (embedders and tests). */
  config?: ConfigInput;
  /**
   * A config `loadConfig` already read and checked, used as it is (over `home`, `configPath` and
   * `config`): `agentd serve` reads its file once per start, not a second time here.
   */
  loaded?: LoadedConfig;
  /** Write a config with a fresh key when the file is missing (what `agentd serve` does). */
  bootstrap?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Override the configured bind address / port (`--host`, `--port`). */
  host?: string;
  port?: number;
  log?: Logger;
  /** Clock for rate limiting, audit timestamps and retention (tests). */
  now?: () => number;
  /** Slow-client guard for the REST listener (tests shorten it). */
  requestTimeoutMs?: number;
  /** Keep-alive comment interval of run event streams (default 15 s; tests shorten it). */
  ssePingIntervalMs?: number;
  /** How long shutdown waits for agent loops to unwind (default 5 s; tests shorten it). */
  shutdownGraceMs?: number;
  /** Lease of a session claim (default 20 s) and how often claims are renewed and expired ones reaped (5 s); tests shorten them. */
  sessionLeaseMs?: number;
  heartbeatMs?: number;
  /** Delay before an MCP server is reconnected, doubled per failure (default 1 s up to 60 s; tests shorten it). */
  mcpBackoff?: { initialMs: number; maxMs: number };
  /** Delay before the Discord Gateway is reconnected after a failure, doubled per failure with jitter (default 1 s up to 60 s; tests shorten it). */
  discordBackoff?: { initialMs: number; maxMs: number };
  /** How often a replica without the Discord connection tries to take it (default 5 s; tests shorten it). */
  discordLeaseCheckMs?: number;
  /** Prefix of the keys kept in Redis, over `storage.redis_key_prefix` (tests give each run its own). */
  redisKeyPrefix?: string;
}

export interface App {
  readonly config: Config;
  readonly home: string;
  readonly version: string;
  /** The stores: SQLite in the home folder, or the configured PostgreSQL database. */
  readonly storage: Storage;
  readonly audit: AuditLog;
  readonly memory: TurnStore;
  readonly providers: ProviderRegistry;
  readonly tools: ToolRegistry;
  /** Sessions, chat, runs and costs; the scheduler and webhook start runs through it. */
  readonly agent: AgentRuntime;
  /** Scheduled jobs; their fires start with `listen()` and stop first on `close()`. */
  readonly scheduler: Scheduler;
  readonly http: ReturnType<typeof createHttpServer>['app'];
  /** The outbound gateway: this app's network policy, approval memory and connection pool. */
  readonly gateway: Gateway;
  /** The MCP tool servers of `mcp.servers`: their connections (from `listen()` on) and manifest pins. */
  readonly mcp: McpServers;
  /** Requests waiting for an operator's decision (tools.require_approval, network.interactive_approval: api). */
  readonly approvals: Approvals;
  /** The webhook channel when `webhook.enabled` (started by `listen()`). */
  readonly webhook: WebhookService | null;
  /** The Discord channel's message side when `discord.enabled` (started by `listen()`): the connection hands it each message. */
  readonly discord: DiscordService | null;
  /** The Discord Gateway connection when `discord.enabled` (held by one replica; taken from `listen()` on). */
  readonly discordConnection: LeasedConnection | null;
  /** The doctor report (`agentd doctor`, `GET /api/v1/diagnostics`). */
  diagnostics(): Promise<DiagnosticsReport>;
  /** The generated API key when this start bootstrapped a new config file. */
  readonly bootstrapKey: string | null;
  /** Start listening; resolves with the base URL (`http://host:port`). When it fails, what it had started is stopped again with the rest of the app. */
  listen(): Promise<string>;
  readonly url: string;
  readonly port: number;
  /** Stop accepting, finish in-flight work, close the database. Safe to call twice. */
  close(): Promise<void>;
}

function resolveConfig(options: CreateAppOptions, env: NodeJS.ProcessEnv): LoadedConfig {
  if (options.loaded) return options.loaded;
  if (options.config === undefined) {
    return loadConfig({ home: options.home, configPath: options.configPath, env, bootstrap: options.bootstrap });
  }
  const config = parseConfig(applyStorageEnv(options.config, env));
  const envKey = env.SERVICE_API_KEY;
  if (envKey) config.api.api_key = envKey;
  const home = resolveHome(options.home, env);
  return { config, home, configPath: '', bootstrapKey: null, apiKeyFromEnv: Boolean(envKey) };
}

/** The composition root: the only place that knows every part of the service. */
export async function createApp(options: CreateAppOptions = {}): Promise<App> {
  const env = options.env ?? process.env;
  const log = options.log ?? createLogger();
  const now = options.now ?? Date.now;
  const loaded = resolveConfig(options, env);
  const { config, home } = loaded;
  if (options.host !== undefined) config.api.host = options.host;
  if (options.port !== undefined) config.api.port = options.port;

  // Everything the config alone decides is checked before the home folder is touched.
  const policy = NetworkPolicy.fromConfig(config.network);
  const stores = await openStores({ config, home, log, now, redisKeyPrefix: options.redisKeyPrefix });
  let assembled: { app: App; lifecycle: Lifecycle };
  try {
    assembled = await assemble({ options, env, log, now, loaded, policy, stores });
  } catch (error) {
    // Nothing else has started: what the stores opened is closed again.
    await new Lifecycle(stores.parts).stop();
    throw error;
  }
  // A part that fails to start stops the ones started before it, and its error is thrown here.
  await assembled.lifecycle.start('create');
  return assembled.app;
}

interface AssemblyInput {
  options: CreateAppOptions;
  env: NodeJS.ProcessEnv;
  log: Logger;
  now: () => number;
  loaded: LoadedConfig;
  policy: NetworkPolicy;
  stores: Stores;
}

/** Wires every part on an open database, and lists them in start order for the lifecycle. */
async function assemble({ options, env, log, now, loaded, policy, stores }: AssemblyInput): Promise<{ app: App; lifecycle: Lifecycle }> {
  const { config, home } = loaded;
  const { storage, coordination } = stores;
  const audit = new AuditLog(storage.audit, now);
  const startedAt = now();
  const metrics = new ServiceMetrics();

  // The approvals tell a run that it waits and the run asks the approvals: they get the runs once built.
  const runs = new LateBound<RunApprovalEvents>('the runs');
  const outbound = await wireGateway({ config, env, home, log, now, policy, storage, audit, metrics, runs, mcpBackoff: options.mcpBackoff });
  const { approvals, gateway, providers, tools, mcp } = outbound;
  const agentParts = wireAgent({ options, config, log, now, storage, coordination, audit, metrics, gateway, approvals, providers, tools });
  const { agent, sessions } = agentParts;
  runs.bind(agent.runs);
  const jobs = wireScheduler({ storage, agent, audit, log, now, providers, defaultSetting: outbound.defaultSetting, mcp });
  const { scheduler } = jobs;
  const address: ListenAddress = { url: '', port: 0 };
  const channels = await wireChannels({ config, log, now, storage, coordination, audit, metrics, agent, gateway, env, consoleUrl: () => address.url });
  const { webhook, discord } = channels;
  const discordConnection = discord === null ? null : (await import('./app/discord.js')).wireDiscordConnection({
    config, env, log, audit, gateway, agent, owner: storage.owner, backoff: options.discordBackoff, leaseCheckMs: options.discordLeaseCheckMs,
    events: {
      ready: (bot) => {
        log.info(`discord: connected as ${bot.username} (${bot.userId}) in ${bot.guildCount} guild(s)`);
        discord.ready(bot);
      },
      // Stored before anything else happens; a message the database cannot take now is logged,
      // and Discord does not redeliver it, so the failure is on record (docs/discord.md#storage-and-runs).
      message: (message) => {
        discord.accept(message).catch((err: unknown) => log.error(`discord: message ${message.id} could not be stored: ${(err as Error)?.message ?? String(err)}`));
      },
    },
  });
  const retention = retentionPart(config, storage, audit, now, log);

  const consoleAssets = loadConsoleAssets(join(PACKAGE_ROOT, 'dist', 'console'));
  logStartupChecks(startupChecks({
    config, home, hashKeySource: outbound.hashKeySource, sharedStorage: storageBackend(config).shared, consoleMissing: consoleAssets.missing,
    defaultProvider: { name: providers.default, problem: providers.get(providers.default)?.unavailableReason() ?? null },
  }), log);

  const diagnostics = liveDiagnostics({ loaded, address, now, startedAt, storage, coordination, audit, providers, tools, agent, sessions, scheduler, webhook, mcp, discord: discordConnection?.connection ?? null });
  const web = wireHttp({
    config, home, log, now, startedAt, address, requestTimeoutMs: options.requestTimeoutMs, ssePingIntervalMs: options.ssePingIntervalMs,
    storage, coordination, audit, metrics, agent, sessions, providers, tools, scheduler, controls: jobs.controls, approvals, webhook,
    consoleAssets: consoleAssets.assets, diagnostics,
  });

  // Start order; stop is the reverse. Read bottom-up, that is shutdown: the webhook stops taking
  // messages and no job fires, what waits for a decision is denied, runs in flight end and their
  // outcomes are recorded, then the listeners close (the REST one after the runs: their streams
  // end with them), then retention, MCP servers, the gateway, liveness, Redis, the database, the lock.
  const lifecycle = new Lifecycle([
    ...stores.parts,
    agentParts.parts.liveness,
    outbound.parts.gateway,
    web.parts.urlFile,
    outbound.parts.mcp,
    retention,
    web.parts.server,
    channels.parts?.drained ?? null,
    channels.discordParts?.drained ?? null,
    jobs.parts.drained,
    agentParts.parts.agent,
    outbound.parts.approvals,
    jobs.parts.runner,
    channels.parts?.intake ?? null,
    channels.discordParts?.intake ?? null,
    discordConnection?.part ?? null,
  ]);
  const { http } = web;

  const app: App = {
    config,
    home,
    version: VERSION,
    storage,
    audit,
    memory: storage.turns,
    providers,
    tools,
    agent,
    scheduler,
    http,
    gateway,
    mcp,
    approvals,
    webhook,
    discord,
    discordConnection: discordConnection?.connection ?? null,
    diagnostics,
    bootstrapKey: loaded.bootstrapKey,
    get url() {
      return address.url;
    },
    get port() {
      return address.port;
    },
    async listen() {
      await lifecycle.start('listen');
      return address.url;
    },
    close: () => lifecycle.stop(),
  };
  return { app, lifecycle };
}
