import type { ToolSpec } from '../contracts/tool-spec.js';

/**
 * The provider contract the agent loop depends on. A provider turns a conversation (and the tools
 * it may call) into either a final text or tool calls, and reports real token usage.
 */
export interface ToolCall {
  /** Provider-assigned id, echoed back on the matching tool result. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError: boolean };

export type { ToolSpec };

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal: AbortSignal;
  /** Session and run the call belongs to, for gateway audit events. */
  sessionId?: string;
  taskId?: string;
  /** The HTTP request the call was made for, for gateway audit events and the failure's log line. */
  requestId?: string;
  /**
   * Hears the answer's text as it arrives, in pieces whose concatenation is the result's `text`.
   * Raw model output: whoever shows it censors it first (docs/api.md#run-event-stream).
   */
  onText?(delta: string): void;
}

export interface CompletionResult {
  /** Final text; empty when the model asked for tool calls only. */
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  /** The model that actually answered (as reported by the provider). */
  model: string;
}

/**
 * A provider call with its request built and not yet sent: `bound` is the most it can be billed for,
 * counted from the very body `send` posts (`requestBound`), so a budget can hold it first.
 */
export interface PreparedCall {
  readonly bound: Usage;
  send(): Promise<CompletionResult>;
}

export interface Provider {
  readonly name: string;
  readonly model: string;
  /** Whether the provider can be used now (key present, base_url configured, …). */
  available(): boolean;
  /** Why it is unavailable, with the remedy (for 400 errors and diagnostics). */
  unavailableReason(): string | null;
  /**
   * Builds the request `complete` would send, without sending it. Throws what `complete` would
   * for a provider that cannot be used now, before anything is held or sent.
   */
  prepare(request: CompletionRequest): PreparedCall;
  /** `prepare(request).send()`. */
  complete(request: CompletionRequest): Promise<CompletionResult>;
}
