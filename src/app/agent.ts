import { storageBackend } from '../storage/registry.js';
import { AgentRuntime } from '../agent/runtime.js';
import type { Approvals } from '../approvals/index.js';
import type { Gateway } from '../gateway/index.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { ToolRegistry } from '../tools/index.js';
import { LateBound } from './late-bound.js';
import type { ServiceCore } from './core.js';
import type { LifecyclePart } from './lifecycle.js';

export interface AgentInput extends ServiceCore {
  /** The timings tests shorten (`CreateAppOptions`). */
  options: { shutdownGraceMs?: number; sessionLeaseMs?: number; heartbeatMs?: number };
  gateway: Gateway;
  approvals: Approvals;
  providers: ProviderRegistry;
  tools: ToolRegistry;
}

/** Sessions, the agent runtime and its runs, and this replica's liveness among the others. */
export function wireAgent({ options, config, log, now, storage, coordination, audit, metrics, gateway, approvals, providers, tools }: AgentInput) {
  // The session store asks the runtime whether a session has work in flight, and the runtime keeps
  // its sessions in that store: the store gets the runtime once it exists.
  const runtime = new LateBound<AgentRuntime>('the agent runtime');
  // Eviction never ends a session with work in flight; an ended session's approval answers go.
  const sessions = storage.sessionStore({
    now, isBusy: (id) => runtime.get().isBusy(id),
    onEnd: (id) => {
      gateway.endSession(id);
      // An evicted session's grants end too (a delete through the API waits for this itself).
      approvals.endSession(id).catch((error: unknown) => log.warn(`could not end the approval grants of session ${id}: ${(error as Error)?.message ?? String(error)}`));
    },
  });
  const agent = new AgentRuntime({
    memory: storage.turns, runs: storage.runs, costs: storage.costs, sessions, tools, providers, audit, config, log, now,
    shutdownGraceMs: options.shutdownGraceMs, bus: coordination?.runEvents,
    claims: storage.sessionClaims, leaseMs: options.sessionLeaseMs, heartbeatMs: options.heartbeatMs, metrics,
    approvals: { approveTool: approvals.approveTool, runWaiting: (runId) => approvals.runWaiting(runId),
      forRun: (runId, limit) => approvals.forRun(runId, limit), endSession: (id) => approvals.endSession(id) },
  });
  runtime.bind(agent);
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
  if (liveness) agent.leases.knowLastAliveBy(() => liveness.lastWritten());
  const parts = {
    // The outcomes of the runs it ends are recorded before the stores close.
    agent: { name: 'agent runtime', start: () => agent.start(), stop: () => agent.close() } satisfies LifecyclePart,
    // Live for the other replicas before it takes any work, and written until the end, so the runs
    // ended at shutdown are not taken for a dead replica's.
    liveness: liveness && ({ name: 'replica liveness', phase: 'listen', start: () => liveness.start(), stop: () => liveness.stop() } satisfies LifecyclePart),
  };
  return { sessions, agent, parts };
}
