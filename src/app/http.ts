import { rmSync, writeFileSync } from 'node:fs';
import { homeFile } from '../config/home-layout.js';
import type { AgentRuntime } from '../agent/runtime.js';
import type { Approvals } from '../approvals/index.js';
import { AuditSampler } from '../audit/sampler.js';
import type { WebhookService } from '../channels/webhook-service.js';
import type { ConsoleAsset } from '../console/assets.js';
import type { OperatorControls } from '../controls/index.js';
import type { RedisCoordination } from '../coordination/redis-coordination.js';
import type { DiagnosticsReport } from '../diagnostics/index.js';
import type { Dependency, RouteContext } from '../http/resources/context.js';
import { registerResources } from '../http/resources/index.js';
import { isLoginForm, WEB_PUBLIC_PATHS } from '../http/resources/login/index.js';
import { createHttpServer } from '../http/server.js';
import { ListenError } from '../listen-error.js';
import type { Logger } from '../log.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { Scheduler } from '../scheduler/index.js';
import { liveEvictionWarning, SlidingWindowRateLimiter } from '../security/rate-limit/rate-limiter.js';
import type { Storage } from '../storage/ports/storage.js';
import type { ToolRegistry } from '../tools/index.js';
import { VERSION } from '../version.js';
import type { ListenAddress } from './diagnostics.js';
import type { ServiceCore } from './core.js';
import type { LifecyclePart } from './lifecycle.js';


export interface HttpInput extends ServiceCore {
  home: string;
  startedAt: number;
  address: ListenAddress;
  /** Slow-client guard and event-stream keep-alive interval (`CreateAppOptions`; tests shorten them). */
  requestTimeoutMs?: number;
  ssePingIntervalMs?: number;
  agent: AgentRuntime;
  sessions: { count(): Promise<number> };
  providers: ProviderRegistry;
  tools: ToolRegistry;
  scheduler: Scheduler;
  controls: OperatorControls;
  approvals: Approvals;
  webhook: WebhookService | null;
  consoleAssets: ConsoleAsset[];
  diagnostics: () => Promise<DiagnosticsReport>;
}

/** The REST API and the operator console on one Fastify app, and its listener's place in the lifecycle. */
export function wireHttp(input: HttpInput) {
  const { config, home, log, now, address, storage, coordination, audit, metrics, agent, sessions, providers, tools, webhook } = input;
  const webSessions = storage.webSessionStore({ ttlSeconds: config.api.web_session_ttl_seconds, now });
  const auditSampler = new AuditSampler(3, 60_000, 10_000, now);
  const browserLimit = BROWSER_RATE_FACTOR * config.api.rate_limit_rpm;
  const { app: http, openapi, countAttempt } = createHttpServer({
    log,
    version: VERSION,
    apiKey: config.api.api_key,
    trustProxy: config.api.trust_proxy,
    rateLimiter: coordination?.rateLimiter('api', config.api.rate_limit_rpm) ?? localLimiter('api', config.api.rate_limit_rpm, now, log),
    browserRateLimiter: coordination?.rateLimiter('console', browserLimit) ?? localLimiter('console', browserLimit, now, log),
    audit,
    auditSampler,
    webSessions,
    cookieName: config.api.cookie_name,
    isPublicPath: (path) => WEB_PUBLIC_PATHS.has(path),
    countsItself: isLoginForm,
    requestTimeoutMs: input.requestTimeoutMs,
    metrics,
  });
  metrics.readFrom({
    runsInFlight: () => agent.inFlight,
    webhookQueueDepth: async () => (webhook === null ? 0 : webhook.inbox.waitingCount()),
    databaseSizeBytes: async () => (await storage.health()).sizeBytes,
  });
  const context: RouteContext = {
    version: VERSION,
    openapi,
    status: async () => ({
      version: VERSION,
      uptime_s: Math.round((now() - input.startedAt) / 1000),
      providers_available: providers.list().filter((p) => p.available).map((p) => p.name),
      default_provider: providers.default,
      tool_count: tools.size,
      session_count: await sessions.count(),
      memory: { present: true, turn_count: await storage.turns.count() },
      webhook_queue_depth: webhook === null ? null : await webhook.inbox.waitingCount(),
    }),
    diagnostics: input.diagnostics,
    unready: readinessCheck(storage, coordination),
    agent,
    providers,
    tools,
    memory: storage.turns,
    audit,
    scheduler: input.scheduler,
    controls: input.controls,
    approvals: input.approvals,
    auditTrail: audit,
    web: { apiKey: config.api.api_key, sessions: webSessions, cookieName: config.api.cookie_name, trustProxy: config.api.trust_proxy, countAttempt },
    consoleAssets: input.consoleAssets,
    pingIntervalMs: input.ssePingIntervalMs,
    metrics,
  };
  registerResources(http, context);

  const parts = {
    server: {
      name: 'REST API',
      phase: 'listen',
      start: async () => {
        try {
          await http.listen({ host: config.api.host, port: config.api.port, listenTextResolver: (bound) => `REST API listening on ${bound}` });
        } catch (error) {
          throw new ListenError('REST API', config.api.host, config.api.port, '--port N or api.port in the config', error);
        }
        const bound = http.server.address();
        address.port = typeof bound === 'object' && bound ? bound.port : config.api.port;
        const host = config.api.host.includes(':') ? `[${config.api.host}]` : config.api.host;
        address.url = `http://${host}:${address.port}`;
        writeFileSync(homeFile(home, 'url'), `${address.url}\n`, { mode: 0o600 });
      },
      // Also ends the open run event streams (a hook of the routes), which would hold it open.
      stop: () => http.close(),
    } satisfies LifecyclePart,
    // Removed once the work is done, not when the listener closes: until then the service still runs.
    urlFile: {
      name: 'URL file',
      stop: () => {
        if (address.url !== '') rmSync(homeFile(home, 'url'), { force: true });
      },
    } satisfies LifecyclePart,
  };
  return { http, parts };
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

/**
 * The console's pages, assets and logins get this many times the API's per-minute limit: a page
 * load is a handful of them, and reloading must not run out before the API does
 * (docs/api.md#rate-limits); the window still bounds a client that floods them.
 */
const BROWSER_RATE_FACTOR = 10;

function localLimiter(listener: string, perMinute: number, now: () => number, log: Logger): SlidingWindowRateLimiter {
  const limiter = new SlidingWindowRateLimiter(perMinute, 10_000, 60, now);
  limiter.onLiveEviction((evicted) => log.warn(liveEvictionWarning(listener, evicted)));
  return limiter;
}
