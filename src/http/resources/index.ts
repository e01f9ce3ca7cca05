import type { FastifyInstance } from 'fastify';
import type { ErrorEntry } from '../error-entries.js';
import { approvalsPlugin } from './approvals/index.js';
import { APPROVAL_ERRORS } from './approvals/errors.js';
import { auditPlugin } from './audit/index.js';
import { chatPlugin } from './chat/index.js';
import { consolePlugin } from './console/index.js';
import { API_PREFIX, type ContextSlice, type ResourcePlugin, type RouteContext } from './context.js';
import { controlsPlugin } from './controls/index.js';
import { CONTROL_ERRORS } from './controls/errors.js';
import { costsPlugin } from './costs/index.js';
import { diagnosticsPlugin } from './diagnostics/index.js';
import { loginPlugin } from './login/index.js';
import { memoryPlugin } from './memory/index.js';
import { metricsPlugin } from './metrics/index.js';
import { overviewPlugin } from './overview/index.js';
import { providersPlugin } from './providers/index.js';
import { runsPlugin } from './runs/index.js';
import { schedulerPlugin } from './scheduler/index.js';
import { SCHEDULER_ERRORS } from './scheduler/errors.js';
import { sessionsPlugin } from './sessions/index.js';
import { systemPlugin } from './system/index.js';
import { toolsPlugin } from './tools/index.js';

/** One resource of the HTTP interface, as the list below names it. */
export interface Resource {
  readonly plugin: ResourcePlugin<keyof RouteContext>;
  /** Where its routes are mounted: the API prefix, or the root for the browser's pages and Prometheus' scrape. */
  readonly prefix: string;
  /** The parts of the context its plugin is given as options. */
  readonly uses: readonly (keyof RouteContext)[];
  /** The domain errors only its routes raise, with their catalogue codes (the error handler asks them all). */
  readonly errors: readonly ErrorEntry[];
  register(app: FastifyInstance, context: RouteContext): void;
}

/** `uses` must name every part the plugin's options need: the plugin's type does not widen the list. */
function resource<K extends keyof RouteContext>(
  plugin: ResourcePlugin<NoInfer<K>>,
  prefix: string,
  uses: readonly K[],
  errors: readonly ErrorEntry[] = [],
): Resource {
  return {
    plugin, prefix, uses, errors,
    register: (app, context) => void app.register(plugin, { prefix, ...slice(context, uses) }),
  };
}

function slice<K extends keyof RouteContext>(context: RouteContext, uses: readonly K[]): ContextSlice<K> {
  return Object.fromEntries(uses.map((key) => [key, context[key]])) as ContextSlice<K>;
}

/**
 * Every resource, in the order it is registered, which is the order of the OpenAPI document's
 * paths. Each is a plugin of its own folder; adding one is its folder and a line here.
 */
export const RESOURCES: readonly Resource[] = [
  resource(loginPlugin, '', ['web', 'audit']),
  resource(consolePlugin, '', ['web', 'consoleAssets']),
  resource(metricsPlugin, '', ['metrics']),
  resource(systemPlugin, API_PREFIX, ['version', 'status', 'openapi', 'unready']),
  resource(diagnosticsPlugin, API_PREFIX, ['diagnostics']),
  resource(providersPlugin, API_PREFIX, ['providers']),
  resource(toolsPlugin, API_PREFIX, ['tools']),
  resource(sessionsPlugin, API_PREFIX, ['agent', 'memory', 'audit']),
  resource(chatPlugin, API_PREFIX, ['agent', 'audit']),
  resource(runsPlugin, API_PREFIX, ['agent', 'audit', 'openapi', 'pingIntervalMs', 'metrics']),
  resource(costsPlugin, API_PREFIX, ['agent']),
  resource(memoryPlugin, API_PREFIX, ['memory', 'audit']),
  resource(schedulerPlugin, API_PREFIX, ['scheduler', 'controls'], SCHEDULER_ERRORS),
  resource(controlsPlugin, API_PREFIX, ['controls'], CONTROL_ERRORS),
  resource(approvalsPlugin, API_PREFIX, ['approvals'], APPROVAL_ERRORS),
  resource(auditPlugin, API_PREFIX, ['auditTrail']),
  resource(overviewPlugin, API_PREFIX, ['status', 'agent', 'approvals', 'scheduler']),
];

/**
 * Registers every resource on the app, after the pipeline's hooks, the parsers and the error and
 * not-found handlers, so each resource's routes inherit them.
 */
export function registerResources(app: FastifyInstance, context: RouteContext): void {
  for (const entry of RESOURCES) entry.register(app, context);
}
