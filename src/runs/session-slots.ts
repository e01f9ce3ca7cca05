import { AgentError, sessionBusy } from '../contracts/agent-errors.js';

/** Runs and chats in flight across all sessions; past it new work is refused (503). */
export const MAX_IN_FLIGHT = 10_000;

export interface InFlight {
  kind: 'run' | 'chat';
  /** Run id, or a chat's own id. */
  id: string;
  controller: AbortController;
}

/**
 * The one in-flight slot each session has (docs/decisions.md#one-run-per-session). A run and a
 * synchronous chat take the same slot, so a chat on a busy session is refused like a second run.
 * The controller in the slot is how a run or chat is cancelled from outside (cancel endpoint,
 * session end, shutdown).
 */
export class SessionSlots {
  private readonly slots = new Map<string, InFlight>();

  constructor(private readonly max = MAX_IN_FLIGHT) {}

  get size(): number {
    return this.slots.size;
  }

  /** Takes the session's slot or throws `session_busy` (or `capacity` when the service is full). */
  acquire(sessionId: string, kind: InFlight['kind'], id: string): AbortController {
    if (this.slots.has(sessionId)) throw sessionBusy(sessionId);
    if (this.slots.size >= this.max) {
      throw new AgentError('capacity', `${this.max} runs are in flight; try again when some have finished`);
    }
    const controller = new AbortController();
    this.slots.set(sessionId, { kind, id, controller });
    return controller;
  }

  /** Frees the slot if `id` still holds it. */
  release(sessionId: string, id: string): void {
    if (this.slots.get(sessionId)?.id === id) this.slots.delete(sessionId);
  }

  holder(sessionId: string): InFlight | undefined {
    return this.slots.get(sessionId);
  }

  busy(sessionId: string): boolean {
    return this.slots.has(sessionId);
  }

  /** Sessions with something in flight (shutdown cancels them). */
  sessionIds(): string[] {
    return [...this.slots.keys()];
  }
}
