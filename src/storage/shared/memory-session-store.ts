import type { SessionStore } from '../ports/sessions.js';
import type { ApiSession } from '../ports/sessions.js';
import { isoNow } from '../ports/runs.js';
import { newId } from '../../security/ids/tokens.js';
import type { SessionStoreOptions } from '../ports/storage.js';
import { SessionsFullError } from '../ports/errors.js';

export const MAX_API_SESSIONS = 10_000;

export type InMemorySessionStoreOptions = SessionStoreOptions;

/**
 * API sessions, in memory (docs/resources.md#api-sessions: a restart forgets them; their turns persist). The map's
 * insertion order is kept as recency order — every use moves a session to the end — so the least
 * recently used session is the first key and "most recent first" is the map read backwards.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, ApiSession>();
  private readonly max: number;
  private readonly now: () => number;
  private readonly isBusy: (sessionId: string) => boolean;
  private readonly onEnd: (sessionId: string) => void;

  constructor(options: InMemorySessionStoreOptions = {}) {
    this.max = options.max ?? MAX_API_SESSIONS;
    this.now = options.now ?? Date.now;
    this.isBusy = options.isBusy ?? (() => false);
    this.onEnd = options.onEnd ?? (() => {});
  }

  async count(): Promise<number> {
    return this.sessions.size;
  }

  async create(input: { name?: string | null; provider: string }): Promise<ApiSession> {
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
    return { ...session };
  }

  async get(id: string): Promise<ApiSession | null> {
    const session = this.sessions.get(id);
    return session ? { ...session } : null;
  }

  async touch(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    session.last_used_at = isoNow(this.now);
    this.sessions.delete(id);
    this.sessions.set(id, session);
  }

  async addTurns(id: string, count: number): Promise<void> {
    const session = this.sessions.get(id);
    if (session) session.turn_count += count;
  }

  async list(limit: number): Promise<ApiSession[]> {
    const all = [...this.sessions.values()];
    const out: ApiSession[] = [];
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) out.push({ ...all[i]! });
    return out;
  }

  async delete(id: string): Promise<boolean> {
    return this.end(id);
  }

  private end(id: string): boolean {
    if (!this.sessions.delete(id)) return false;
    this.onEnd(id);
    return true;
  }

  private evictOne(): void {
    for (const id of this.sessions.keys()) {
      if (this.isBusy(id)) continue;
      this.end(id);
      return;
    }
    throw new SessionsFullError(this.max);
  }
}
