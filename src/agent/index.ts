/** The agent runtime: API sessions, the agent loop, costs. Runs and their event streams are in `runs/`. */
export { AgentRuntime, type AgentRuntimeOptions, type ChatReply, type CostSummary, type TurnRequest } from './runtime.js';
export { AgentLoop, DEFAULT_MAX_ITERATIONS, DEFAULT_CONTEXT_TURNS, MAX_TOOL_CALLS_PER_STEP } from './agent-loop.js';
export type { RunStore, RunOutcome, CostStore, CostEntry, CostTotals, SessionSpend, SessionStore } from './stores.js';
export { CostMeter, formatUsd } from './cost-meter.js';
export * from './types.js';
