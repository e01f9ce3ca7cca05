import { newId } from '../security/tokens.js';
import { AgentError } from './errors.js';
import { isoNow, type ApiSession } from './types.js';

export const MAX_API_SESSIONS = 10_000;

export interface SessionStoreOptions {
  /** Most sessions kept; past it the least recently used idle session is ended. */
  max?: number;
  now?: () => number;
  /** Whether a session has a run or chat in flight (such a session is never evicted). */
  isBusy?: (sessionId: string) => boolean;
  /** Called for every session that ends, deleted or evicted (to cancel its work, forget approvals). */
  onEnd?: (sessionId: string) => void;
}

/**
 * API sessions, in memory as the spec says (a restart forgets them; their turns persist). The map's
 * insertion order is kept as recency order — every use moves a session to the end — so the least
 * recently used session is the first key and "most recent first" is the map read backwards.
 */
export class SessionStore {
  private readonly sessions = new Map<string, ApiSession>();
  private readonly max: number;
  private readonly now: () => number;
  private readonly isBusy: (sessionId: string) => boolean;
  private readonly onEnd: (sessionId: string) => void;

  constructor(options: SessionStoreOptions = {}) {
    this.max = options.max ?? MAX_API_SESSIONS;
    this.now = options.now ?? Date.now;
    this.isBusy = options.isBusy ?? (() => false);
    this.onEnd = options.onEnd ?? (() => {});
  }

  get size(): number {
    return this.sessions.size;
  }

  create(input: { name?: string | null; provider: string }): ApiSession {
    if (this.sessions.size >= this.max) this.evictOne();
    const at = isoNow(this.now);
    const session: ApiSession = {
      id: newId('ses'),
      name: input.name ?? null,
      provider: input.provider,
      created_at: at,
      last_used_at: at,
      turn_count: 0,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  get(id: string): ApiSession | undefined {
    return this.sessions.get(id);
  }

  /** Marks the session used now (a chat or run started on it). */
  touch(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    session.last_used_at = isoNow(this.now);
    this.sessions.delete(id);
    this.sessions.set(id, session);
  }

  /** Counts turns stored through the session; a no-op once it has ended. */
  addTurns(id: string, count: number): void {
    const session = this.sessions.get(id);
    if (session) session.turn_count += count;
  }

  /** Most recently used first. */
  list(limit: number): ApiSession[] {
    const all = [...this.sessions.values()];
    const out: ApiSession[] = [];
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) out.push(all[i]!);
    return out;
  }

  /** Ends the session; false when it is unknown. */
  delete(id: string): boolean {
    if (!this.sessions.delete(id)) return false;
    this.onEnd(id);
    return true;
  }

  /** Ends every session (shutdown). */
  clear(): void {
    for (const id of [...this.sessions.keys()]) this.delete(id);
  }

  private evictOne(): void {
    for (const id of this.sessions.keys()) {
      if (this.isBusy(id)) continue;
      this.delete(id);
      return;
    }
    throw new AgentError('capacity', `all ${this.max} API sessions are busy; try again when a run has finished`);
  }
}
