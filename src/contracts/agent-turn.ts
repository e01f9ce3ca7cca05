import type { Provider } from '../providers/types.js';
import type { RunCost, RunEndWrites } from '../storage/ports/runs.js';
import type { TurnOrigin } from '../tools/types.js';
import type { Turn } from '../storage/ports/turns.js';

/*
 * One turn of the agent as its callers see it: a synchronous chat (agent/) and a background run
 * (runs/), which executes the turn it is given without knowing the agent that answers it. Declared
 * apart from both so that runs/ never imports agent/.
 */

/**
 * Most of a turn's text shown live (`onDelta`), in characters: past it the rest arrives with the
 * terminal event only, so a huge answer is not cleaned over and over while it streams.
 */
export const MAX_LIVE_TEXT_CHARS = 1024 * 1024;

export interface ToolRequestInfo {
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** A tool call's outcome, as the run's `tool.result` event records it (docs/resources.md#run-trace). */
export interface ToolResultInfo {
  call_id: string;
  tool: string;
  is_error: boolean;
  /** How long the tool itself ran (an approval's wait not included). */
  duration_ms: number;
  /** ISO 8601: when the call was asked for (before any approval), and when its result came. */
  started_at: string;
  finished_at: string;
  /** The start of the result as the audit log would show it (redacted), at most `RESULT_PREVIEW_CHARS`. */
  result_preview: string;
  /** The result was longer than the preview. */
  result_truncated: boolean;
  /** The error the tool reported (redacted, bounded like the preview); null when it succeeded. */
  error: string | null;
}

export interface AgentTurnInput {
  sessionId: string;
  /** Who asked: tools that could read other sessions (memory_search) confine a channel's turn. */
  origin: TurnOrigin;
  /** The run this turn belongs to; null for a synchronous chat. */
  runId: string | null;
  message: string;
  provider: Provider;
  signal: AbortSignal;
  /** The HTTP request the turn was asked by: named on its audit events, provider calls and log lines. */
  requestId?: string;
  /**
   * Each provider call's usage and price, as soon as it is recorded (also when the turn later
   * fails), with the model that answered it as the provider reported.
   */
  onUsage?(cost: RunCost, model: string): void;
  /** The turn's first provider call has answered (called once, before any tool runs). */
  onFirstToken?(): void;
  /**
   * The model's text as it is written, in pieces whose concatenation is the text shown so far:
   * censored like the answer, a secret never split across pieces (agent/answer-preview.ts). Text
   * of a step that then asks for tools is included; the stored answer is the last step's alone.
   * At most `MAX_LIVE_TEXT_CHARS` of a step's text come this way.
   */
  onDelta?(text: string): void;
  onToolRequest?(info: ToolRequestInfo): void;
  onToolResult?(info: ToolResultInfo): void;
  /**
   * Where the run's store keeps a run's costs and turns for the commit of its end: the sink while
   * that end is still to come, null once it has been written (a cancelled run's loop unwinding
   * after it writes its own). Absent: each is committed on its own before the loop goes on.
   */
  endWrites?(): RunEndWrites | null;
  /** The session's last turns, read with the run's creation (`TurnRunner.contextTurns` of them): not read again. */
  history?: readonly Turn[];
}

export interface AgentTurnResult {
  /** The final answer, censored. */
  response: string;
  resolvedProvider: string;
  toolsUsed: string[];
  cost: RunCost;
}

/**
 * Executes one turn of the agent (`AgentLoop`); resolves once its turns are committed, or handed
 * to the run's end (`AgentTurnInput.endWrites`).
 */
export interface TurnRunner {
  /** How many of the session's last turns a turn sends as its context. */
  readonly contextTurns?: number;
  run(input: AgentTurnInput): Promise<AgentTurnResult>;
}
