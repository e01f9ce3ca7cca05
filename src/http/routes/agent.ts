import type { FastifyInstance } from 'fastify';
import type { AgentRuntime } from '../../agent/runtime.js';
import type { AuditSink } from '../../audit/types.js';
import type { TurnStore } from '../../memory/types.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { chatRoutes } from './chat.js';
import { costRoutes } from './costs.js';
import { catalogRoutes } from './providers.js';
import { runEventRoutes, type RunEventStreams } from './run-events.js';
import { runRoutes } from './runs.js';
import { sessionRoutes } from './sessions.js';

export interface AgentRoutesContext {
  agent: AgentRuntime;
  providers: ProviderRegistry;
  tools: ToolRegistry;
  memory: TurnStore;
  audit: AuditSink;
  /** Keep-alive interval of event streams (tests shorten it). */
  pingIntervalMs?: number;
}

/** Every route of the agent runtime: providers, tools, sessions, chat, runs, run events, costs. */
export function agentRoutes(app: FastifyInstance, ctx: AgentRoutesContext): RunEventStreams {
  catalogRoutes(app, ctx);
  sessionRoutes(app, ctx);
  chatRoutes(app, ctx);
  runRoutes(app, ctx);
  costRoutes(app, ctx);
  return runEventRoutes(app, { agent: ctx.agent, pingIntervalMs: ctx.pingIntervalMs });
}
