import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentRuntime } from './agent/runtime.js';
import { Approvals, loadRequestHashKey } from './approvals/index.js';
import { homeFile } from './config/home-layout.js';
import { AuditLog } from './audit/log.js';
import { ChainStatus } from './audit/chain-status.js';
import { AuditSampler } from './audit/sampler.js';
import { controlCatalogue, OperatorControls } from './controls/index.js';
import { DUPLICATE_WINDOW_DAYS, SIGNATURE_PRUNE_MARGIN_MS } from './channels/inbox/durable-inbox.js';
import { WebhookService } from './channels/webhook-service.js';
import { diagnose, type DiagnosticsReport } from './diagnostics/index.js';
import { ConfigError } from './config/errors.js';
import { applyStorageEnv, ensureHome, loadConfig, parseConfig, resolveHome, type LoadedConfig } from './config/load.js';
import type { Config, ConfigInput } from './config/schema.js';
import { API_PREFIX, apiRoutes, isLoginForm, webRoutes, WEB_PUBLIC_PATHS, type RouteContext } from './http/routes/index.js';
import type { Dependency } from './http/routes/context.js';
import { Gateway } from './gateway/index.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { ServiceMetrics } from './metrics/index.js';
import { createHttpServer } from './http/server.js';
import { createLogger, type Logger } from './log.js';
import type { TurnStore } from './storage/ports/turns.js';
import { createMemorySearchTool } from './memory/memory-search-tool.js';
import { McpServers } from './mcp/index.js';
import { NetworkPolicy } from './policy/network-policy.js';
import { createProviderRegistry, DefaultProviderSetting, type GatewayClientFactory, type ProviderRegistry } from './providers/index.js';
import { Scheduler } from './scheduler/index.js';
import { createToolRegistry, type ToolRegistry } from './tools/index.js';
import { KnownSecrets } from './security/known-secrets.js';
import { liveEvictionWarning, SlidingWindowRateLimiter } from './security/rate-limiter.js';
import type { RedisCoordination } from './coordination/redis-coordination.js';
import { ListenError } from './listen-error.js';
import { acquireHomeLock, HomeLockedError } from './storage/shared/home-lock.js';
import { startRetention, type RetentionRule } from './storage/retention.js';
import { openConfiguredStorage, storageBackend } from './storage/registry.js';
import type { Storage } from './storage/ports/storage.js';
import { PACKAGE_ROOT, VERSION } from './version.js';
import { loadConsoleAssets } from './console/assets.js';

export interface CreateAppOptions {
  /** Home folder (database, config). Default `$AGENTD_HOME` or `~/.agentd`. */
  home?: string;
  /** Config file; default `<home>/config.yaml`. Ignored when `config` is given. */
  configPath?: string;
  /** In-memory configuration instead of a file (embedders and tests). */
  config?: ConfigInput;
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
  /** The doctor report (`agentd doctor`, `GET /api/v1/diagnostics`). */
  diagnostics(): Promise<DiagnosticsReport>;
  /** The generated API key when this start bootstrapped a new config file. */
  readonly bootstrapKey: string | null;
  /** Start listening; resolves with the base URL (`http://host:port`). */
  listen(): Promise<string>;
  readonly url: string;
  readonly port: number;
  /** Stop accepting, finish in-flight work, close the database. Safe to call twice. */
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);
/** Web sessions shorter than this are warned about at start: the operator is sent to the login page that often. */
const SHORT_WEB_SESSION_SECONDS = 300;

function resolveConfig(options: CreateAppOptions, env: NodeJS.ProcessEnv): LoadedConfig {
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
  ensureHome(home);
  const releaseLock = lockHome(home);
  let storage: Storage | undefined;
  const redisUrl = config.storage.redis_url;
  // The Redis client is loaded only when Redis is configured, so a single node starts without it.
  const coordination = redisUrl === null
    ? null
    : new (await import('./coordination/redis-coordination.js')).RedisCoordination({ url: redisUrl, log, keyPrefix: options.redisKeyPrefix ?? config.storage.redis_key_prefix });
  try {
    storage = await openConfiguredStorage(config, home, { now, service: true, log: (message) => log.warn(message), info: (message) => log.info(message) });
    await coordination?.start();
    const app = await assemble({ options, env, log, now, loaded, policy, storage, coordination, releaseLock });
    await app.agent.start();
    await app.approvals.recover();
    return app;
  } catch (error) {
    await coordination?.close();
    await storage?.close();
    releaseLock();
    throw error;
  }
}

function lockHome(home: string): () => void {
  try {
    return acquireHomeLock(home);
  } catch (error) {
    if (error instanceof HomeLockedError) throw error;
    throw new ConfigError(`cannot write the lock file ${homeFile(home, 'lock')} (${(error as Error).message}); give your user write access to ${home} or pass --home (or set AGENTD_HOME) to a folder you can write`);
  }
}

interface AssemblyInput {
  options: CreateAppOptions;
  env: NodeJS.ProcessEnv;
  log: Logger;
  now: () => number;
  loaded: LoadedConfig;
  policy: NetworkPolicy;
  storage: Storage;
  /** State shared with other replicas (`storage.redis_url`); null: all of it stays in this process. */
  coordination: RedisCoordination | null;
  releaseLock: () => void;
}

/** Wires every part on an open database; `createApp` undoes the lock and database if this throws. */
async function assemble({ options, env, log, now, loaded, policy, storage, coordination, releaseLock }: AssemblyInput): Promise<App> {
  const { config, home } = loaded;
  const audit = new AuditLog(storage.audit, now);
  const memory = storage.turns;
  const startedAt = now();
  const metrics = new ServiceMetrics();

  // An approval shows its request exactly, but never a secret the service itself holds; its hash
  // is keyed with the installation's secret, kept out of the database and the audit log.
  const hashKey = loadRequestHashKey(config.approval_hash_key, home);
  if (hashKey.source === 'home' && storageBackend(config).shared) {
    log.warn(`approval_hash_key is not set: this replica keys approvals' request_hash with ${homeFile(home, 'approvalHashKey')}; set approval_hash_key to one value on every replica so that they digest a request alike`);
  }
  const knownSecrets = KnownSecrets.fromConfig(config, env, [{ name: 'approval hash key', value: hashKey.secret }]);
  // A run's approvals show on its status and stream; decisions may come from any replica.
  const approvals = new Approvals({
    store: storage.approvals, audit, log, now, timeoutMs: config.approval_timeout_seconds * 1000,
    toolsRequiringApproval: config.tools.require_approval,
    requestKeys: { hashKey: hashKey.key, secrets: knownSecrets },
    runs: {
      approvalRequested: (runId, payload) => agent.runs.approvalRequested(runId, payload),
      approvalResolved: (runId, payload) => agent.runs.approvalResolved(runId, payload),
    },
  });
  // Every outbound request of providers and tools goes through the gateway under this app's policy.
  const gateway = new Gateway({
    policy, audit, log: (message) => log.warn(message),
    approval: config.network.interactive_approval === 'api' ? approvals.network : undefined, metrics,
  });
  const gatewayClientFactory: GatewayClientFactory = gateway.clientFactory;
  const providers = createProviderRegistry({ config, env, gatewayClientFactory, logger: log });
  // The default an operator chose with provider.set_default outlives restarts.
  const defaultSetting = new DefaultProviderSetting(providers, storage.settings, now);
  const restored = await defaultSetting.restore();
  if (restored) log[restored.level](restored.message);
  const tools = createToolRegistry({ gatewayClientFactory, extraTools: [createMemorySearchTool(memory, { channelScope: config.tools.memory_search_scope })] });
  // MCP servers add their tools to the registry once connected and their manifests accepted.
  const mcp = new McpServers({
    servers: config.mcp.servers, env, gatewayClientFactory, settings: storage.settings, tools, audit, now, backoff: options.mcpBackoff,
  });
  // Eviction never ends a session with work in flight; an ended session's approval answers go.
  const sessions = storage.sessionStore({
    now, isBusy: (id) => agent.isBusy(id),
    onEnd: (id) => {
      gateway.endSession(id);
      // An evicted session's grants end too (a delete through the API waits for this itself).
      approvals.endSession(id).catch((error: unknown) => log.warn(`could not end the approval grants of session ${id}: ${(error as Error)?.message ?? String(error)}`));
    },
  });
  const agent: AgentRuntime = new AgentRuntime({
    memory, runs: storage.runs, costs: storage.costs, sessions, tools, providers, audit, config, log, now,
    shutdownGraceMs: options.shutdownGraceMs, bus: coordination?.runEvents,
    claims: storage.sessionClaims, leaseMs: options.sessionLeaseMs, heartbeatMs: options.heartbeatMs, metrics,
    approvals: { approveTool: approvals.approveTool, runWaiting: (runId) => approvals.runWaiting(runId), endSession: (id) => approvals.endSession(id) },
  });
  const scheduler = new Scheduler({ store: storage.jobs, runs: agent, audit, log, now, checkProvider: (name) => void providers.resolve(name) });
  const controls = new OperatorControls(controlCatalogue({ scheduler, providers, defaultProvider: defaultSetting, mcp }), audit);
  const webhook = config.webhook.enabled
    ? new WebhookService(config.webhook, {
      audit, log, runner: agent, inbox: storage.inbox, owner: storage.owner, now,
      rateLimiter: coordination?.rateLimiter('webhook', config.webhook.rate_limit_rpm), metrics,
    })
    : null;
  // Messages a stopped replica had claimed are given back when its sessions are reaped: take them then.
  if (webhook) agent.leases.onReaped(() => webhook.inbox.claimNow());
  // Replicas sharing a database and a Redis find a dead one by its liveness key within seconds, and
  // free what it held at once; the leases in the database stay the rule while Redis is down.
  const liveness = coordination !== null && storageBackend(config).shared
    ? coordination.liveness({
      replicaId: storage.owner, log, now,
      renewedBy: (replicaId) => storage.sessionClaims.renewedBy(replicaId),
      stopped: (replicaId, upTo) => agent.leases.reapReplica(replicaId, upTo),
      unrecorded: () => agent.leases.renewNow(),
    })
    : null;
  const stopRetention = startRetention(retentionRules(config, storage, audit, now), log);

  if (config.api.api_key === '') {
    log.warn('api.api_key is empty and SERVICE_API_KEY is not set: every request will be refused with 401');
  }
  if (!LOOPBACK_HOSTS.has(config.api.host)) {
    log.warn(`listening on non-loopback host ${config.api.host}: put a TLS reverse proxy with access control in front`);
  }
  const defaultProvider = providers.get(providers.default);
  const unusable = defaultProvider?.unavailableReason() ?? null;
  if (unusable !== null) {
    log.warn(`the default provider '${providers.default}' is unusable: ${unusable}; requests that name no provider will fail until then`);
  }
  if (config.api.trust_proxy) {
    log.warn('api.trust_proxy is on: the client IP is the leftmost X-Forwarded-For address, which the client controls unless your proxy overwrites the header');
  }

  if (config.api.web_session_ttl_seconds < SHORT_WEB_SESSION_SECONDS) {
    log.warn(`api.web_session_ttl_seconds is ${config.api.web_session_ttl_seconds}: console sessions end that many seconds after login; values this short suit trying expiry out, not daily use`);
  }
  const consoleAssets = loadConsoleAssets(join(PACKAGE_ROOT, 'dist', 'console'));
  if (consoleAssets.missing.length > 0) {
    log.warn(`the operator console is not built (missing ${consoleAssets.missing.join(', ')}): run npm run build`);
  }

  const webSessions = storage.webSessionStore({ ttlSeconds: config.api.web_session_ttl_seconds, now });
  const auditSampler = new AuditSampler(3, 60_000, 10_000, now);
  const { app: http, openapi, countAttempt } = createHttpServer({
    log,
    version: VERSION,
    apiKey: config.api.api_key,
    trustProxy: config.api.trust_proxy,
    rateLimiter: coordination?.rateLimiter('api', config.api.rate_limit_rpm) ?? localApiLimiter(config.api.rate_limit_rpm, now, log),
    audit,
    auditSampler,
    webSessions,
    cookieName: config.api.cookie_name,
    isPublicPath: (path) => WEB_PUBLIC_PATHS.has(path),
    countsItself: isLoginForm,
    requestTimeoutMs: options.requestTimeoutMs,
    metrics,
  });
  metrics.readFrom({
    runsInFlight: () => agent.inFlight,
    webhookQueueDepth: async () => (webhook === null ? 0 : webhook.inbox.waitingCount()),
    databaseSizeBytes: async () => (await storage.health()).sizeBytes,
  });
  const chain = new ChainStatus(() => audit.verify(), { now });
  const diagnostics = (): Promise<DiagnosticsReport> =>
    diagnose({
      // Once listening, the bound port (not the configured 0) is what is reported.
      config: port === 0 ? config : { ...config, api: { ...config.api, port } },
      home, configPath: loaded.configPath || null, apiKeyFromEnv: loaded.apiKeyFromEnv, storage, memory, providers, tools,
      webhook: webhook?.state() ?? null,
      scheduler: { jobs: () => scheduler.all(), firing: scheduler.runner.firing, now: now() },
      runtime: { uptimeSeconds: Math.round((now() - startedAt) / 1000), sessions: () => sessions.count(), runsInFlight: agent.inFlight },
      pendingApprovals: () => storage.approvals.list({ pendingOnly: true, limit: 100 }),
      audit: { stats: () => audit.stats(), chain: () => chain.current() }, now,
      redis: coordination ? () => coordination.health() : undefined,
      mcp: () => mcp.statuses(),
    });
  const context: RouteContext = {
    version: VERSION,
    openapi,
    status: async () => ({
      version: VERSION,
      uptime_s: Math.round((now() - startedAt) / 1000),
      providers_available: providers.list().filter((p) => p.available).map((p) => p.name),
      default_provider: providers.default,
      tool_count: tools.size,
      session_count: await sessions.count(),
      memory: { present: true, turn_count: await memory.count() },
    }),
    diagnostics,
    unready: readinessCheck(storage, coordination),
    agent,
    providers,
    tools,
    memory,
    audit,
    scheduler,
    controls,
    approvals,
    auditTrail: audit,
    web: { apiKey: config.api.api_key, sessions: webSessions, cookieName: config.api.cookie_name, trustProxy: config.api.trust_proxy, countAttempt },
    consoleAssets: consoleAssets.assets,
    pingIntervalMs: options.ssePingIntervalMs,
    metrics,
  };
  void http.register(webRoutes, { context });
  void http.register(metricsRoutes, { context });
  void http.register(apiRoutes, { prefix: API_PREFIX, context });

  let url = '';
  let port = 0;
  let closing: Promise<void> | null = null;

  const close = async (): Promise<void> => {
    closing ??= (async () => {
      try {
        // The webhook listener stops taking messages at once; runs in flight end (terminal event
        // stored and sent) before the listener and database close.
        const webhookStopped = webhook?.stop();
        // No fire may start a run while the runtime closes; the outcomes of the runs it ends are recorded.
        await scheduler.runner.stop();
        // What still waits for a decision is denied; the next start records it as interrupted.
        approvals.stop();
        await agent.close();
        await scheduler.runner.drain();
        await webhookStopped;
        // Also ends the open run event streams (a hook of the routes), which would hold it open.
        await http.close();
        await stopRetention();
        await mcp.close();
      } finally {
        if (url !== '') rmSync(homeFile(home, 'url'), { force: true });
        await gateway.close();
        // Written until the end, so the runs ended above are not taken for a dead replica's.
        await liveness?.stop();
        await coordination?.close();
        await storage.close();
        releaseLock();
      }
    })();
    return closing;
  };

  return {
    config,
    home,
    version: VERSION,
    storage,
    audit,
    memory,
    providers,
    tools,
    agent,
    scheduler,
    http,
    gateway,
    mcp,
    approvals,
    webhook,
    diagnostics,
    bootstrapKey: loaded.bootstrapKey,
    get url() {
      return url;
    },
    get port() {
      return port;
    },
    async listen() {
      // Live for the other replicas before it takes any work.
      await liveness?.start();
      try {
        await http.listen({ host: config.api.host, port: config.api.port, listenTextResolver: (address) => `REST API listening on ${address}` });
      } catch (error) {
        throw new ListenError('REST API', config.api.host, config.api.port, '--port N or api.port in the config', error);
      }
      const address = http.server.address();
      port = typeof address === 'object' && address ? address.port : config.api.port;
      const host = config.api.host.includes(':') ? `[${config.api.host}]` : config.api.host;
      url = `http://${host}:${port}`;
      // Where `agentd doctor` on the same home finds the running service (0600).
      writeFileSync(homeFile(home, 'url'), `${url}\n`, { mode: 0o600 });
      if (webhook) {
        try {
          await webhook.start();
        } catch (error) {
          throw new ListenError('webhook channel', config.webhook.host, config.webhook.port, 'webhook.port in the config', error);
        }
        // Messages become runs on the session webhook:<sender>; their answers are read from the runs.
        log.info(`webhook channel listening on ${webhook.url}; each message runs on the session webhook:<sender> (GET /api/v1/runs?session_id=webhook:<sender>)`);
      }
      // Jobs fire while the service serves; what fell due before this moment counts as missed.
      scheduler.runner.start();
      // Child processes and connections start only here, so an app that fails to start or is never served leaves none behind.
      mcp.start();
      return url;
    },
    close,
  };
}

/**
 * What the replica cannot reach of what it needs to serve. Probes asking while a check runs share
 * it: readiness needs no key and, while Redis is down, no rate limit, so a flood of probes must
 * cost the database one query and Redis one PING at a time, not one each.
 */
function readinessCheck(storage: Storage, coordination: RedisCoordination | null): () => Promise<Dependency[]> {
  let checking: Promise<Dependency[]> | null = null;
  // Both are asked at once (a probe waits for the slower, never the sum), and Redis with a command:
  // a hung Redis keeps its connection open and would look ready to anything that only read its state.
  const check = async (): Promise<Dependency[]> => {
    const [database, redis] = await Promise.all([storage.ready(), coordination ? coordination.answers() : true]);
    const down: Dependency[] = [];
    if (!database) down.push('database');
    if (!redis) down.push('redis');
    return down;
  };
  return () => (checking ??= check().finally(() => (checking = null)));
}

function localApiLimiter(perMinute: number, now: () => number, log: Logger): SlidingWindowRateLimiter {
  const limiter = new SlidingWindowRateLimiter(perMinute, 10_000, 60, now);
  limiter.onLiveEviction((evicted) => log.warn(liveEvictionWarning('api', evicted)));
  return limiter;
}

const DAY_MS = 86_400_000;
const cutoff = (now: () => number, days: number) => new Date(now() - days * DAY_MS).toISOString();

/** Every table that only grows, with its age limit from the config (0 keeps it forever). */
function retentionRules(config: Config, storage: Storage, audit: AuditLog, now: () => number): RetentionRule[] {
  return [
    { what: 'turns', days: config.memory.retention_days, prune: (days, signal) => storage.turns.cleanupOlderThan(days, { signal }) },
    { what: 'runs', days: config.retention.runs_days, prune: (days, signal) => storage.runs.pruneFinishedBefore(cutoff(now, days), { signal }) },
    { what: 'cost records', days: config.retention.costs_days, prune: (days, signal) => storage.costs.pruneBefore(cutoff(now, days), { signal }) },
    { what: 'approvals', days: config.retention.runs_days, prune: (days, signal) => storage.approvals.pruneClosedBefore(cutoff(now, days), { signal }) },
    { what: 'audit events', days: config.retention.audit_days, prune: (days, signal) => audit.prune(days, { signal }) },
    // Started webhook messages are kept (text erased) only while their X-Request-Id catches repeats.
    { what: 'webhook messages', days: DUPLICATE_WINDOW_DAYS, prune: (days, signal) => storage.inbox.pruneStartedBefore(cutoff(now, days), { signal }) },
    // Replay records matter only until their timestamp leaves the tolerance window; `accept` removes
    // expired ones as it goes, this catches what a quiet channel left behind. The margin covers
    // replicas whose clocks run behind this one's.
    {
      what: 'webhook replay records', days: DUPLICATE_WINDOW_DAYS, age: 'past their timestamp window',
      prune: (_days, signal) => storage.inbox.pruneSignaturesBefore(new Date(now() - SIGNATURE_PRUNE_MARGIN_MS).toISOString(), { signal }),
    },
  ];
}
