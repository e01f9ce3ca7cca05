import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../../test/helpers/storage.js';
import { AuditLog } from '../audit/log.js';
import type { CompletionRequest, CompletionResult, PreparedCall, Provider, Usage } from '../providers/types.js';
import { createCalculatorTool } from '../tools/calculator.js';
import { ToolRegistry } from '../tools/registry.js';
import { AgentLoop, MAX_TOOL_CALLS_PER_STEP } from './agent-loop.js';
import type { AgentTurnInput, ToolResultInfo } from '../contracts/agent-turn.js';
import { CostMeter } from './cost-meter.js';

/** A provider that answers from a script and records what it was sent (a stand-in for a model). */
class ScriptedProvider implements Provider {
  readonly name = 'scripted';
  readonly model = 'scripted-1';
  readonly requests: CompletionRequest[] = [];
  constructor(
    private readonly script: ((request: CompletionRequest) => Partial<CompletionResult> | Promise<Partial<CompletionResult>>)[],
    /** What each call says it may cost at most (`PreparedCall.bound`). */
    private readonly bound: Usage = { prompt_tokens: 1, completion_tokens: 1 },
  ) {}
  available() {
    return true;
  }
  unavailableReason() {
    return null;
  }
  prepare(request: CompletionRequest): PreparedCall {
    return { bound: this.bound, send: () => this.complete(request) };
  }
  async complete(request: CompletionRequest): Promise<CompletionResult> {
    this.requests.push({ ...request, messages: [...request.messages] });
    const step = this.script[this.requests.length - 1] ?? (() => ({ text: 'done' }));
    const partial = await step(request);
    return { text: '', toolCalls: [], model: this.model, usage: { prompt_tokens: 1, completion_tokens: 1 }, ...partial };
  }
}

function setup(options: { maxIterations?: number; contextTurns?: number; maxSpendUsd?: number } = {}) {
  const storage = memoryStorage();
  const memory = storage.turns;
  const tools = new ToolRegistry();
  tools.register(createCalculatorTool());
  tools.register({
    name: 'slow', description: 'waits for the abort', schema: { type: 'object', properties: {} },
    run: (_args, context) => new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(new Error('aborted')))),
  });
  const audit = new AuditLog(storage.audit);
  // With a cap: $1 per prompt token, so a hold (about a token per 4 characters of prompt) is easy to reckon.
  const price = options.maxSpendUsd ? { input_per_mtok: 1_000_000, output_per_mtok: 0 } : null;
  const costs = new CostMeter({ costs: storage.costs, maxSpendUsd: options.maxSpendUsd ?? 0, providerConfig: () => ({ base_url: null, price }) });
  const loop = new AgentLoop({ memory, tools, costs, audit, maxIterations: options.maxIterations, contextTurns: options.contextTurns });
  const input = (provider: Provider, extra: Partial<AgentTurnInput> = {}): AgentTurnInput => ({
    sessionId: 'ses_1', origin: 'api', runId: 'run_1', message: 'hello', provider, signal: new AbortController().signal, ...extra,
  });
  return { storage, memory, loop, input, costs };
}

describe('AgentLoop', () => {
  it('sends the bounded history (starting with a user turn) plus the new message', async () => {
    const { memory, loop, input } = setup({ contextTurns: 3 });
    await memory.addMany([
      { session_id: 'ses_1', role: 'user', content: 'u1', provider: 'x' },
      { session_id: 'ses_1', role: 'assistant', content: 'a1', provider: 'x' },
      { session_id: 'ses_1', role: 'user', content: 'u2', provider: 'x' },
      { session_id: 'ses_1', role: 'assistant', content: 'a2', provider: 'x' },
      { session_id: 'other', role: 'user', content: 'elsewhere', provider: 'x' },
    ]);
    const provider = new ScriptedProvider([() => ({ text: 'answer' })]);
    const result = await loop.run(input(provider));
    expect(result).toEqual({ response: 'answer', resolvedProvider: 'scripted', toolsUsed: [], cost: { prompt_tokens: 1, completion_tokens: 1, cost_usd: 0 } });
    // The last 3 turns are a1, u2, a2: the leading assistant turn is dropped.
    expect(provider.requests[0]!.messages).toEqual([
      { role: 'user', content: 'u2' }, { role: 'assistant', content: 'a2' }, { role: 'user', content: 'hello' },
    ]);
    expect((await memory.history('ses_1', 2)).map((t) => [t.role, t.content, t.provider])).toEqual([
      ['user', 'hello', 'scripted'], ['assistant', 'answer', 'scripted'],
    ]);
  });

  it('sends the turns read with the run\'s creation as its context, without reading memory again', async () => {
    const { memory, loop, input } = setup();
    await memory.addMany([{ session_id: 'ses_1', role: 'user', content: 'stored later', provider: 'x' }]);
    const read = [
      { id: 'turn_a', session_id: 'ses_1', role: 'user' as const, content: 'u0', provider: 'x', timestamp: '2026-01-01T00:00:00.000Z', pinned: false },
      { id: 'turn_b', session_id: 'ses_1', role: 'assistant' as const, content: 'a0', provider: 'x', timestamp: '2026-01-01T00:00:01.000Z', pinned: false },
    ];
    const provider = new ScriptedProvider([() => ({ text: 'answer' })]);
    await loop.run(input(provider, { history: read }));
    expect(provider.requests[0]!.messages).toEqual([
      { role: 'user', content: 'u0' }, { role: 'assistant', content: 'a0' }, { role: 'user', content: 'hello' },
    ]);
  });

  it('feeds tool results and tool errors back to the model, and reports each call', async () => {
    const { loop, input } = setup();
    const provider = new ScriptedProvider([
      () => ({ toolCalls: [{ id: 'c1', name: 'calculator', arguments: { expression: '2*21' } }, { id: 'c2', name: 'nope', arguments: {} }] }),
      () => ({ text: 'final' }),
    ]);
    const seen: string[] = [];
    const results: ToolResultInfo[] = [];
    const result = await loop.run(input(provider, {
      onUsage: (_cost, model) => seen.push(`usage ${model}`),
      onFirstToken: () => seen.push('first token'),
      onToolRequest: (info) => seen.push(`request ${info.call_id} ${info.tool}`),
      onToolResult: (info) => {
        seen.push(`result ${info.call_id} ${info.is_error}`);
        results.push(info);
      },
    }));
    // The first answer is noted once, before any tool runs; each call's model is reported.
    expect(seen).toEqual(['usage scripted-1', 'first token', 'request c1 calculator', 'result c1 false', 'request c2 nope', 'result c2 true', 'usage scripted-1']);
    expect(results[0]).toMatchObject({ result_preview: '42', result_truncated: false, error: null });
    expect(results[1]).toMatchObject({ result_preview: expect.stringMatching(/unknown tool 'nope'/), error: expect.stringMatching(/unknown tool 'nope'/) });
    expect(Date.parse(results[0]!.started_at)).toBeLessThanOrEqual(Date.parse(results[0]!.finished_at));
    expect(result.toolsUsed).toEqual(['calculator', 'nope']);
    const second = provider.requests[1]!.messages;
    expect(second.slice(-2)).toEqual([
      { role: 'tool', toolCallId: 'c1', name: 'calculator', content: '42', isError: false },
      { role: 'tool', toolCallId: 'c2', name: 'nope', content: expect.stringMatching(/unknown tool 'nope'/), isError: true },
    ]);
  });

  it('answers calls beyond the per-step cap with errors, without running them', async () => {
    const { loop, input } = setup();
    const calls = Array.from({ length: MAX_TOOL_CALLS_PER_STEP + 2 }, (_, i) => ({ id: `c${i}`, name: 'calculator', arguments: { expression: '1+1' } }));
    const provider = new ScriptedProvider([() => ({ toolCalls: calls })]);
    let requests = 0;
    await loop.run(input(provider, { onToolRequest: () => requests++ }));
    expect(requests).toBe(MAX_TOOL_CALLS_PER_STEP);
    const tools = provider.requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(MAX_TOOL_CALLS_PER_STEP + 2);
    expect(tools.at(-1)).toMatchObject({ isError: true, content: expect.stringMatching(/not executed/) });
  });

  it('fails at the iteration cap, after reporting the usage of every call', async () => {
    const { loop, input, memory } = setup({ maxIterations: 3 });
    const provider = new ScriptedProvider(Array(5).fill(() => ({ toolCalls: [{ id: 'c', name: 'calculator', arguments: { expression: '1' } }] })));
    let calls = 0;
    await expect(loop.run(input(provider, { onUsage: () => calls++ }))).rejects.toMatchObject({ code: 'iteration_limit' });
    expect(calls).toBe(3);
    // What the user asked is stored even though no answer came.
    expect((await memory.history('ses_1', 5)).map((t) => t.role)).toEqual(['user']);
  });

  it('stops a tool in flight when the signal aborts', async () => {
    const { loop, input } = setup();
    const controller = new AbortController();
    const provider = new ScriptedProvider([() => ({ toolCalls: [{ id: 'c', name: 'slow', arguments: {} }] })]);
    const running = loop.run(input(provider, { signal: controller.signal, onToolRequest: () => setImmediate(() => controller.abort(new Error('stop'))) }));
    await expect(running).rejects.toThrow('stop');
    expect(provider.requests).toHaveLength(1);
  });

  it('holds budget for each call while it runs and frees it when the call fails', async () => {
    // Each call may cost up to $9 (its bound): a second hold of as much does not fit under $15 beside it.
    const { loop, input, costs, storage } = setup({ maxSpendUsd: 15 });
    let heldDuringCall = false;
    const bound = { prompt_tokens: 9, completion_tokens: 0 };
    const provider = new ScriptedProvider([
      async () => {
        // While this call runs its hold counts: a second call on the session does not fit beside it.
        heldDuringCall = await costs.hold('ses_1', provider, bound).then(() => false, () => true);
        return { text: 'paid', usage: { prompt_tokens: 3, completion_tokens: 0 } };
      },
      () => {
        throw new Error('upstream failed');
      },
    ], bound);
    expect((await loop.run(input(provider))).cost.cost_usd).toBe(3);
    expect(heldDuringCall).toBe(true);
    await expect(loop.run(input(provider))).rejects.toThrow('upstream failed');
    // Nothing is held any more ($3 spent): a $12 hold fits exactly; a leaked hold of the failed call would not.
    expect(await storage.costs.sessionSpend('ses_1')).toBe(3);
    const rest = await costs.hold('ses_1', provider, { prompt_tokens: 12, completion_tokens: 0 });
    await expect(costs.hold('ses_1', provider, { prompt_tokens: 1, completion_tokens: 0 })).rejects.toThrow(/budget exceeded/);
    await rest.release();
  });

  it('refuses a call whose bound does not fit in what is left before it is sent, the first call of a session too', async () => {
    const { loop, input, storage } = setup({ maxSpendUsd: 15 });
    // Nothing spent and nothing in flight, but the call could cost $16: it is not made.
    const provider = new ScriptedProvider([() => ({ text: 'never' })], { prompt_tokens: 16, completion_tokens: 0 });
    await expect(loop.run(input(provider))).rejects.toThrow(
      /budget exceeded: session 'ses_1' has spent \$0 of max_spend_usd \$15; the next call may cost up to \$16 \(16 input tokens/,
    );
    expect(provider.requests).toHaveLength(0);
    expect(await storage.costs.sessionSpend('ses_1')).toBe(0);
    // A call whose bound fits exactly is made.
    const fits = new ScriptedProvider([() => ({ text: 'made', usage: { prompt_tokens: 15, completion_tokens: 0 } })], { prompt_tokens: 15, completion_tokens: 0 });
    expect((await loop.run(input(fits))).cost.cost_usd).toBe(15);
    expect(fits.requests).toHaveLength(1);
  });
});
