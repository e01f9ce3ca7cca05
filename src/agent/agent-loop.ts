import type { AuditSink } from '../audit/types.js';
import type { NewTurn, TurnStore } from '../memory/types.js';
import type { ChatMessage, Provider, ToolCall } from '../providers/types.js';
import { censor } from '../security/secrets.js';
import type { ToolRegistry } from '../tools/registry.js';
import { sessionKey, type CostMeter } from './cost-meter.js';
import { AgentError } from './errors.js';
import type { RunCost } from './types.js';
import { immediateWrites, type Writes } from './write-batch.js';

export const DEFAULT_MAX_ITERATIONS = 8;
/** Previous turns of the session sent with each new message. */
export const DEFAULT_CONTEXT_TURNS = 20;
/** Tool calls executed per model step; more are answered with an error (bounds a run's event log). */
export const MAX_TOOL_CALLS_PER_STEP = 16;

export interface ToolRequestInfo {
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface ToolResultInfo {
  call_id: string;
  tool: string;
  is_error: boolean;
  duration_ms: number;
}

export interface AgentTurnInput {
  sessionId: string;
  /** The run this turn belongs to; null for a synchronous chat. */
  runId: string | null;
  message: string;
  provider: Provider;
  signal: AbortSignal;
  /** Each provider call's usage and price, as soon as it is recorded (also when the turn later fails). */
  onUsage?(cost: RunCost): void;
  onToolRequest?(info: ToolRequestInfo): void;
  onToolResult?(info: ToolResultInfo): void;
}

export interface AgentTurnResult {
  /** The final answer, censored. */
  response: string;
  resolvedProvider: string;
  toolsUsed: string[];
  cost: RunCost;
}

export interface AgentLoopOptions {
  memory: TurnStore;
  tools: ToolRegistry;
  costs: CostMeter;
  audit: AuditSink;
  maxIterations?: number;
  contextTurns?: number;
  now?: () => number;
  log?: { error(message: string): void };
  /** Where turns and tool-call audit events go (batched by the runtime); default: written at once. */
  writes?: Writes;
  /** Called with how many turns were stored for a session (API sessions count them). */
  onTurnsStored?(sessionId: string, count: number): void;
}

/**
 * One conversation turn of the agent: provider call → tool calls → results → … until the model
 * answers without asking for tools, or the iteration cap is reached — then the turn fails with
 * `iteration_limit` rather than passing off an unfinished step as an answer.
 *
 * Every step honours the abort signal; tool failures go back to the model as error results; the
 * user turn and the (censored) answer are stored in memory with the provider that answered.
 */
export class AgentLoop {
  private readonly maxIterations: number;
  private readonly contextTurns: number;
  private readonly now: () => number;
  private readonly writes: Writes;

  constructor(private readonly options: AgentLoopOptions) {
    this.writes = options.writes ?? immediateWrites;
    this.maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    this.contextTurns = options.contextTurns ?? DEFAULT_CONTEXT_TURNS;
    this.now = options.now ?? Date.now;
  }

  async run(input: AgentTurnInput): Promise<AgentTurnResult> {
    const askedAt = new Date(this.now()).toISOString();
    let answer: string | null = null;
    try {
      const result = await this.converse(input);
      answer = result.response;
      return result;
    } finally {
      this.store(input, askedAt, answer);
    }
  }

  private async converse(input: AgentTurnInput): Promise<AgentTurnResult> {
    const { provider, signal, sessionId, runId } = input;
    const { tools, costs } = this.options;
    const messages: ChatMessage[] = [...this.context(sessionId), { role: 'user', content: input.message }];
    const toolSpecs = tools.list();
    const used: string[] = [];
    const total: RunCost = { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 };

    for (let step = 0; step < this.maxIterations; step++) {
      signal.throwIfAborted();
      costs.check(sessionId, provider);
      const result = await provider.complete({
        messages, tools: toolSpecs, signal, sessionId, taskId: runId ?? sessionId,
      });
      const cost = costs.record(sessionId, runId, provider, result);
      input.onUsage?.(cost);
      total.prompt_tokens += cost.prompt_tokens;
      total.completion_tokens += cost.completion_tokens;
      total.cost_usd += cost.cost_usd;
      signal.throwIfAborted();

      if (result.toolCalls.length === 0) {
        return { response: censor(result.text), resolvedProvider: provider.name, toolsUsed: used, cost: total };
      }
      messages.push({ role: 'assistant', content: result.text, toolCalls: result.toolCalls });
      for (const [index, call] of result.toolCalls.entries()) {
        if (index >= MAX_TOOL_CALLS_PER_STEP) {
          messages.push(toolMessage(call, `not executed: at most ${MAX_TOOL_CALLS_PER_STEP} tool calls per step`, true));
          continue;
        }
        messages.push(await this.callTool(input, call));
        if (!used.includes(call.name)) used.push(call.name);
      }
    }
    throw new AgentError(
      'iteration_limit',
      `the agent did not reach a final answer within ${this.maxIterations} model calls (the model kept asking for tools)`,
    );
  }

  private async callTool(input: AgentTurnInput, call: ToolCall): Promise<ChatMessage> {
    input.signal.throwIfAborted();
    input.onToolRequest?.({ call_id: call.id, tool: call.name, arguments: call.arguments });
    const result = await this.options.tools.execute(call.name, call.arguments, {
      sessionId: input.sessionId,
      runId: input.runId ?? undefined,
      signal: input.signal,
    });
    // The audit log redacts the arguments itself (sensitive keys, detected secrets).
    const audit = this.options.audit;
    this.writes.defer(() => audit.emit({
      event_type: 'agent.tool_call',
      category: 'agent',
      result: result.isError ? 'error' : 'allow',
      severity: result.isError ? 'warning' : 'info',
      subsystem: 'agent',
      action: call.name,
      session_id: input.sessionId,
      task_id: input.runId,
      detail: { tool: call.name, call_id: call.id, is_error: result.isError, duration_ms: result.durationMs, arguments: call.arguments },
    }), undefined, sessionKey(input.sessionId));
    input.onToolResult?.({ call_id: call.id, tool: call.name, is_error: result.isError, duration_ms: result.durationMs });
    return toolMessage(call, result.output, result.isError);
  }

  /** The session's last turns, as a conversation a provider accepts (it starts with the user). */
  private context(sessionId: string): ChatMessage[] {
    this.writes.flushFor(sessionKey(sessionId));
    const turns = this.options.memory.history(sessionId, this.contextTurns);
    const messages: ChatMessage[] = [];
    for (const turn of turns) {
      if (turn.role !== 'user' && turn.role !== 'assistant') continue;
      if (messages.length === 0 && turn.role !== 'user') continue;
      messages.push({ role: turn.role, content: turn.content });
    }
    return messages;
  }

  /**
   * Stores the user turn and, when there is one, the answer — in one transaction. A failed or
   * cancelled turn still records what the user asked. A storage failure must not replace the
   * turn's own outcome, so it is logged rather than thrown.
   */
  private store(input: AgentTurnInput, askedAt: string, answer: string | null): void {
    const provider = input.provider.name;
    const turns: NewTurn[] = [{ session_id: input.sessionId, role: 'user', content: input.message, provider, timestamp: askedAt }];
    if (answer !== null) {
      turns.push({ session_id: input.sessionId, role: 'assistant', content: answer, provider, timestamp: new Date(this.now()).toISOString() });
    }
    this.writes.defer(
      () => {
        try {
          this.options.memory.addMany(turns);
          this.options.onTurnsStored?.(input.sessionId, turns.length);
        } catch (err) {
          this.options.log?.error(`could not store the turns of session ${input.sessionId}: ${(err as Error).message}`);
        }
      },
      undefined,
      sessionKey(input.sessionId),
    );
  }
}

function toolMessage(call: ToolCall, content: string, isError: boolean): ChatMessage {
  return { role: 'tool', toolCallId: call.id, name: call.name, content, isError };
}
