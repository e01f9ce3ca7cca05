import type { AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import type { NewTurn, Turn, TurnStore } from '../storage/ports/turns.js';
import type { AgentTurnInput, AgentTurnResult, TurnRunner } from '../contracts/agent-turn.js';
import type { ChatMessage, CompletionResult, ToolCall } from '../providers/types.js';
import { withoutNul } from '../security/input/nul.js';
import { censor } from '../security/secrets/secrets.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { CostMeter } from './cost-meter.js';
import { AnswerPreview } from './answer-preview.js';
import { ERROR_PREVIEW_CHARS, previewOf, RESULT_PREVIEW_CHARS } from './tool-preview.js';
import { AgentError, notStored } from '../contracts/agent-errors.js';
import type { RunCost } from '../storage/ports/runs.js';

export const DEFAULT_MAX_ITERATIONS = 8;
/** Previous turns of the session sent with each new message. */
export const DEFAULT_CONTEXT_TURNS = 20;
/** Tool calls executed per model step; more are answered with an error (bounds a run's event log). */
export const MAX_TOOL_CALLS_PER_STEP = 16;

/**
 * Asked before each tool call: null lets it run, a text refuses it (fed back to the model as the
 * call's error result). The call waits while an operator decides.
 */
export type ToolApproval = (
  tool: string,
  args: Record<string, unknown>,
  work: { sessionId: string; runId: string | null; requestId?: string; signal: AbortSignal },
) => Promise<string | null>;

export interface AgentLoopOptions {
  memory: TurnStore;
  tools: ToolRegistry;
  costs: CostMeter;
  audit: AuditSink;
  maxIterations?: number;
  contextTurns?: number;
  now?: () => number;
  log?: Pick<Logger, 'error'>;
  /** `tools.require_approval`: calls of those tools wait for an operator. */
  approveTool?: ToolApproval;
  /**
   * Called with how many turns were stored for a session (API sessions count them); not called
   * where the turn store counts them itself, in the same commit (`TurnStore.sessionsWithTurns`).
   */
  onTurnsStored?(sessionId: string, count: number): Promise<void> | void;
}

/**
 * One conversation turn of the agent: provider call → tool calls → results → … until the model
 * answers without asking for tools, or the iteration cap is reached — then the turn fails with
 * `iteration_limit` rather than passing off an unfinished step as an answer.
 *
 * Every step honours the abort signal; tool failures go back to the model as error results; the
 * user turn and the (censored) answer are stored in memory with the provider that answered.
 */
export class AgentLoop implements TurnRunner {
  private readonly maxIterations: number;
  readonly contextTurns: number;
  private readonly now: () => number;

  constructor(private readonly options: AgentLoopOptions) {
    this.maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    this.contextTurns = options.contextTurns ?? DEFAULT_CONTEXT_TURNS;
    this.now = options.now ?? Date.now;
  }

  /**
   * Resolves once the turns are committed: a caller that answers after this acknowledges only what
   * is stored. When the turns cannot be stored the answer is not given either (`storage`, or
   * `storage_full` on a full disk); a turn that failed anyway keeps its own error (the storage
   * failure is logged).
   */
  async run(input: AgentTurnInput): Promise<AgentTurnResult> {
    const askedAt = this.isoNow();
    let result: AgentTurnResult;
    try {
      result = await this.converse(input);
    } catch (err) {
      await this.store(input, askedAt, null).catch((storeError: unknown) => this.logStoreFailure(input, storeError));
      throw err;
    }
    try {
      await this.store(input, askedAt, result.response);
    } catch (storeError) {
      this.logStoreFailure(input, storeError);
      throw notStored(storeError, 'the answer could not be stored, so it is not given');
    }
    return result;
  }

  private async converse(input: AgentTurnInput): Promise<AgentTurnResult> {
    const { provider, signal, sessionId, runId, requestId } = input;
    const { tools, costs } = this.options;
    const messages: ChatMessage[] = [...(await this.context(sessionId, input.history)), { role: 'user', content: input.message }];
    const toolSpecs = tools.listForProviders();
    const used: string[] = [];
    const total: RunCost = { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };

    for (let step = 0; step < this.maxIterations; step++) {
      signal.throwIfAborted();
      // The request is built first and its bound held before it is sent: the budget counts the
      // body as sent (system prompt and tool definitions included), and a call that does not fit
      // is refused before any byte of it leaves.
      // Viewers see the model's text as it is written, cleaned as the stored answer is.
      const preview = input.onDelta ? new AnswerPreview(input.onDelta) : null;
      const call = provider.prepare({
        messages, tools: toolSpecs, signal, sessionId, taskId: runId ?? sessionId, requestId,
        ...(preview ? { onText: (delta: string) => preview.push(delta) } : {}),
      });
      const held = await costs.hold(sessionId, provider, call.bound);
      let result: CompletionResult;
      try {
        result = await call.send();
        preview?.end(result.text);
      } catch (err) {
        // A hold that cannot be dropped now expires by itself; the call's own error matters more.
        await held.release().catch(() => undefined);
        throw err;
      }
      const cost = await held.settle(runId, result, input.endWrites?.() ?? null);
      input.onUsage?.(cost, result.model);
      if (step === 0) input.onFirstToken?.();
      total.prompt_tokens += cost.prompt_tokens;
      total.completion_tokens += cost.completion_tokens;
      total.cost_usd += cost.cost_usd;
      signal.throwIfAborted();

      if (result.toolCalls.length === 0) {
        // NUL from the model is replaced, on every backend alike: PostgreSQL cannot store it (security/input/nul.ts).
        return { response: withoutNul(censor(result.text)), resolvedProvider: provider.name, toolsUsed: used, cost: total };
      }
      messages.push({ role: 'assistant', content: result.text, toolCalls: result.toolCalls });
      for (const [index, call] of result.toolCalls.entries()) {
        if (index >= MAX_TOOL_CALLS_PER_STEP) {
          messages.push(toolMessage(call, `not executed: at most ${MAX_TOOL_CALLS_PER_STEP} tool calls per step`, true));
          continue;
        }
        const name = tools.fromWireName(call.name);
        messages.push(await this.callTool(input, call, name));
        if (!used.includes(name)) used.push(name);
      }
    }
    throw new AgentError(
      'iteration_limit',
      `the agent did not reach a final answer within ${this.maxIterations} model calls (the model kept asking for tools)`,
    );
  }

  /** `name` is the registered name; the messages keep the one the provider used (`call.name`). */
  private async callTool(input: AgentTurnInput, call: ToolCall, name: string): Promise<ChatMessage> {
    input.signal.throwIfAborted();
    const startedAt = this.isoNow();
    input.onToolRequest?.({ call_id: call.id, tool: name, arguments: call.arguments });
    const refusal = await this.options.approveTool?.(name, call.arguments, {
      sessionId: input.sessionId, runId: input.runId, requestId: input.requestId, signal: input.signal,
    }) ?? null;
    input.signal.throwIfAborted();
    const result = refusal !== null
      ? { output: refusal, isError: true, durationMs: 0 }
      : await this.options.tools.execute(name, call.arguments, {
        sessionId: input.sessionId,
        origin: input.origin,
        runId: input.runId ?? undefined,
        requestId: input.requestId,
        signal: input.signal,
      });
    // The audit log redacts the arguments itself (sensitive keys, detected secrets).
    await this.options.audit.emit({
      event_type: 'agent.tool_call',
      category: 'agent',
      result: refusal !== null ? 'deny' : result.isError ? 'error' : 'allow',
      severity: result.isError ? 'warning' : 'info',
      subsystem: 'agent',
      action: name,
      session_id: input.sessionId,
      task_id: input.runId,
      detail: { tool: name, call_id: call.id, is_error: result.isError, duration_ms: result.durationMs, arguments: call.arguments },
      request_id: input.requestId,
    });
    const preview = previewOf(result.output, RESULT_PREVIEW_CHARS);
    input.onToolResult?.({
      call_id: call.id, tool: name, is_error: result.isError, duration_ms: result.durationMs,
      started_at: startedAt, finished_at: this.isoNow(), result_preview: preview.text, result_truncated: preview.truncated,
      error: result.isError ? previewOf(result.output, ERROR_PREVIEW_CHARS).text : null,
    });
    return toolMessage(call, result.output, result.isError);
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  /** The session's last turns (read unless `read` has them), as a conversation a provider accepts (it starts with the user). */
  private async context(sessionId: string, read: readonly Turn[] | undefined): Promise<ChatMessage[]> {
    const turns = read ?? await this.options.memory.history(sessionId, this.contextTurns);
    const messages: ChatMessage[] = [];
    for (const turn of turns) {
      if (turn.role !== 'user' && turn.role !== 'assistant') continue;
      if (messages.length === 0 && turn.role !== 'user') continue;
      messages.push({ role: turn.role, content: turn.content });
    }
    return messages;
  }

  /**
   * Stores the user turn and, when there is one, the answer — in one transaction, or in the commit
   * of the run's end (`AgentTurnInput.endWrites`). What the user wrote is censored like the
   * answer: a key pasted into a chat must not be kept, searched or shown.
   */
  private async store(input: AgentTurnInput, askedAt: string, answer: string | null): Promise<void> {
    const provider = input.provider.name;
    const runId = input.runId;
    const turns: NewTurn[] = [{ session_id: input.sessionId, role: 'user', content: censor(input.message), provider, run_id: runId, timestamp: askedAt }];
    if (answer !== null) {
      turns.push({ session_id: input.sessionId, role: 'assistant', content: answer, provider, run_id: runId, timestamp: this.isoNow() });
    }
    const atEnd = input.endWrites?.() ?? null;
    if (atEnd && runId !== null) {
      // Committed with the run's end, which acknowledges the answer; a failure fails that end.
      atEnd.turns(runId, turns).catch((error: unknown) => this.logStoreFailure(input, error));
      return;
    }
    const { memory, onTurnsStored } = this.options;
    // Where the store keeps the API sessions too, their count goes with the turns: one commit.
    const countOnSession = onTurnsStored !== undefined && memory.sessionsWithTurns;
    await memory.addMany(turns, { countOnSession });
    if (!countOnSession) await onTurnsStored?.(input.sessionId, turns.length);
  }

  private logStoreFailure(input: AgentTurnInput, error: unknown): void {
    this.options.log?.error(`could not store the turns of session ${input.sessionId}: ${(error as Error)?.message ?? String(error)}`, { request_id: input.requestId });
  }
}

function toolMessage(call: ToolCall, content: string, isError: boolean): ChatMessage {
  return { role: 'tool', toolCallId: call.id, name: call.name, content, isError };
}
