import type { ToolSpec } from '../contracts/tool-spec.js';

/**
 * Who asked for the turn: `api` — an API client on its own session (chat, runs); `channel` — a
 * webhook sender, a scheduled job or another channel, whose prompt the operator did not write.
 */
export type TurnOrigin = 'api' | 'channel';

export interface ToolContext {
  sessionId: string;
  /** Absent counts as `channel`, the narrower: a tool widens what it reads only for `api`. */
  origin?: TurnOrigin;
  runId?: string;
  /** The HTTP request the agent's turn was asked by (for the gateway's audit events). */
  requestId?: string;
  signal: AbortSignal;
}

/**
 * A tool the agent may call. `run` returns the text fed back to the model; a thrown error is
 * caught by the registry and fed back as an error result, never thrown through the run.
 */
export interface ToolDefinition extends ToolSpec {
  /** The MCP server that provides the tool; absent for built-in tools. */
  server?: string;
  run(args: Record<string, unknown>, context: ToolContext): Promise<string>;
}
