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
import type { ApiError } from '../../listener/errors.js';
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

/** A service a replica needs in order to serve. */
export type Dependency = 'database' | 'redis';

/**
 * What the resources need from the rest of the service, built once by the composition root; each
 * resource is given the slice of it that the list of resources names (`src/http/resources/index.ts`).
 */
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

/** The slice of the context a resource is given, as its plugin options. */
export type ContextSlice<K extends keyof RouteContext> = Pick<RouteContext, K>;

/** A resource's Fastify plugin: its options are its slice of the context; request parts are typed from the route schemas. */
export type ResourcePlugin<K extends keyof RouteContext> = FastifyPluginAsyncJsonSchemaToTs<{ Options: ContextSlice<K> }>;

/** The Fastify instance a resource registers its routes on (typed by the same provider). */
export type RouteInstance = Parameters<ResourcePlugin<never>>[0];
