import { AgentLoop } from '../../src/agent/agent-loop.js';
import { CostMeter } from '../../src/agent/cost-meter.js';
import type { RunViewer } from '../../src/runs/fan-out.js';
import type { RunEventBus } from '../../src/runs/run-event-bus.js';
import { RunRegistry } from '../../src/runs/run-registry.js';
import { SessionSlots } from '../../src/runs/session-slots.js';
import type { RunEvent } from '../../src/storage/ports/runs.js';
import { AuditLog } from '../../src/audit/log.js';
import { createMemoryLogger } from '../../src/log.js';
import type { CompletionResult, PreparedCall, Provider } from '../../src/providers/types.js';
import type { SqliteStorage } from '../../src/storage/sqlite/index.js';
import { createCalculatorTool } from '../../src/tools/calculator.js';
import { ToolRegistry } from '../../src/tools/registry.js';

/**
 * Replicas of the run runtime in one process, each with its own registry, session slots and bus
 * connection, sharing one run store: what two `agentd serve` on one shared database are to runs.
 */
export function replicasOn(storage: SqliteStorage, buses: RunEventBus[]): RunRegistry[] {
  return buses.map((bus) => {
    const tools = new ToolRegistry();
    tools.register(createCalculatorTool());
    const audit = new AuditLog(storage.audit);
    const costs = new CostMeter({ costs: storage.costs, maxSpendUsd: 0, providerConfig: () => null });
    const log = createMemoryLogger();
    const loop = new AgentLoop({ memory: storage.turns, tools, costs, audit, log });
    return new RunRegistry({ store: storage.runs, loop, slots: new SessionSlots(), audit, log, bus, shutdownGraceMs: 1_000 });
  });
}

/**
 * A model that asks for one calculation, then holds its answer until `answer()` (or the run's
 * abort): a run stays in flight at a known point with its first three events committed.
 */
export class GatedProvider implements Provider {
  readonly name = 'gated';
  readonly model = 'gated-1';
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));

  available(): boolean {
    return true;
  }

  unavailableReason(): null {
    return null;
  }

  answer(): void {
    this.opened();
  }

  prepare(request: { messages: { role: string }[]; signal: AbortSignal }): PreparedCall {
    return { bound: { prompt_tokens: 1, completion_tokens: 1 }, send: () => this.complete(request) };
  }

  async complete(request: { messages: { role: string }[]; signal: AbortSignal }): Promise<CompletionResult> {
    const usage = { prompt_tokens: 1, completion_tokens: 1 };
    if (!request.messages.some((message) => message.role === 'tool')) {
      return { text: '', toolCalls: [{ id: 'c1', name: 'calculator', arguments: { expression: '6*7' } }], usage, model: this.model };
    }
    await Promise.race([this.gate, new Promise((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)))]);
    return { text: 'the answer is 42', toolCalls: [], usage, model: this.model };
  }
}

/** A viewer that records what it is handed. */
export class RecordingViewer implements RunViewer {
  readonly events: RunEvent[] = [];
  ends = 0;
  private ended!: () => void;
  readonly whenEnded = new Promise<void>((resolve) => (this.ended = resolve));

  send(event: RunEvent): void {
    this.events.push(event);
  }

  end(): void {
    this.ends++;
    this.ended();
  }

  get names(): string[] {
    return this.events.map((event) => event.name);
  }

  get ids(): number[] {
    return this.events.map((event) => event.id);
  }
}
