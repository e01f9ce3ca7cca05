import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyRequest } from 'fastify';
import type { AgentRuntime } from '../../agent/runtime.js';
import type { Approvals } from '../../approvals/index.js';
import type { ConsoleAsset } from '../../console/assets.js';
import type { OperatorControls } from '../../controls/index.js';
import type { AuditPage, AuditQuery, AuditSink } from '../../storage/ports/audit.js';
import type { DiagnosticsReport } from '../../diagnostics/index.js';
import type { TurnStore } from '../../storage/ports/turns.js';
import type { ServiceMetrics } from '../../metrics/index.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { Scheduler } from '../../scheduler/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ApiError } from '../errors.js';
import type { OpenApiCollector } from '../openapi.js';
import type { WebSessionStore } from '../../storage/ports/web-sessions.js';
import type { StatusSnapshot } from './status-snapshot.js';

export type { StatusSnapshot } from './status-snapshot.js';

/** Every REST route lives under this prefix; only the browser's pages (`/`, `/login`, `/logout`) and `/metrics` do not. */
export const API_PREFIX = '/api/v1';


/** The browser session settings of the login routes. */
export interface WebLogin {
  apiKey: string;
  sessions: WebSessionStore;
  cookieName: string;
  trustProxy: boolean;
  /** Counts a login attempt in the operator's window (key matched) or the failed-authentication one; the 429 or null. */
  countAttempt(request: FastifyRequest, succeeded: boolean): Promise<ApiError | null>;
}

/**
 * What the routes need from the rest of the service, built once by the composition root and
 * handed to every route plugin; each route group names the parts it uses.
 */
/** A service a replica needs in order to serve. */
export type Dependency = 'database' | 'redis';

export interface RouteContext {
  version: string;
  openapi: OpenApiCollector;
  status: () => Promise<StatusSnapshot>;
  diagnostics: () => Promise<DiagnosticsReport>;
  /**
   * What the service cannot reach now, of what it needs to serve (readiness, unlike liveness):
   * `database`, `redis`; empty when ready.
   */
  unready: () => Promise<Dependency[]>;
  agent: AgentRuntime;
  providers: ProviderRegistry;
  tools: ToolRegistry;
  memory: TurnStore;
  audit: AuditSink;
  scheduler: Scheduler;
  controls: OperatorControls;
  approvals: Approvals;
  /** The audit browser's reads. */
  auditTrail: { query(query: AuditQuery): Promise<AuditPage> };
  web: WebLogin;
  /** The operator console's built script and stylesheet. */
  consoleAssets: readonly ConsoleAsset[];
  /** Keep-alive interval of run event streams (tests shorten it). */
  pingIntervalMs?: number;
  /** The app's Prometheus metrics (`GET /metrics`; the event streams count their viewers). */
  metrics: ServiceMetrics;
}

/** A route plugin: its request parts are typed from the route schemas. */
export type RoutePlugin = FastifyPluginAsyncJsonSchemaToTs<{ Options: { context: RouteContext } }>;

/** The Fastify instance route groups register on (typed by the same provider). */
export type RouteInstance = Parameters<RoutePlugin>[0];
