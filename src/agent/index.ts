/** The agent runtime: API sessions, the agent loop, runs and their event streams, costs. */
export { AgentRuntime, type AgentRuntimeOptions, type ChatReply, type CostSummary, type TurnRequest } from './runtime.js';
export { AgentLoop, DEFAULT_MAX_ITERATIONS, DEFAULT_CONTEXT_TURNS, MAX_TOOL_CALLS_PER_STEP, type AgentTurnInput, type AgentTurnResult } from './agent-loop.js';
export { RunRegistry, MAX_VIEWERS_PER_RUN, type WatchResult, type StartRunInput } from './run-registry.js';
export type { RunViewer } from './fan-out.js';
export type { RunStore, RunOutcome } from '../storage/ports/runs.js';
export type { CostStore, CostEntry, CostTotals, SessionSpend } from '../storage/ports/costs.js';
export type { SessionStore } from '../storage/ports/sessions.js';
export { CostMeter, formatUsd } from './cost-meter.js';
export { SessionSlots, MAX_IN_FLIGHT } from './session-slots.js';
export { AgentError, failureMessage, type AgentErrorCode } from './errors.js';
export * from '../storage/ports/runs.js';
