import type { SessionStore } from '../ports/sessions.js';
import type { ApiSession } from '../ports/sessions.js';
import { isoNow } from '../ports/runs.js';
import { newId } from '../../security/ids/tokens.js';
import { MAX_API_SESSIONS } from '../shared/memory-session-store.js';
import type { SessionStoreOptions } from '../ports/storage.js';
import { SessionsFullError } from '../ports/errors.js';
import type { PgDatabase, Queryable } from './database.js';
import { SESSIONS_LOCK } from './locks.js';

const COLUMNS = 'id, name, provider, created_at, last_used_at, turn_count';
/** Least recently used sessions looked at per statement when one must be evicted. */
const EVICTION_BATCH = 100;

/**
 * API sessions on PostgreSQL: a session created on one replica is found on every other, and
 * sessions outlive a restart. The bound is enforced under an advisory lock (creations on several
 * replicas cannot overshoot it). Eviction skips the sessions with work in flight: those of this
 * process, and those any replica holds a live claim on (`session_claims`).
 */
export class PgSessionStore implements SessionStore {
  private readonly max: number;
  private readonly now: () => number;
  private readonly isBusy: (sessionId: string) => boolean;
  private readonly onEnd: (sessionId: string) => void;

  constructor(private readonly db: PgDatabase, options: SessionStoreOptions = {}) {
    this.max = options.max ?? MAX_API_SESSIONS;
    this.now = options.now ?? Date.now;
    this.isBusy = options.isBusy ?? (() => false);
    this.onEnd = options.onEnd ?? (() => {});
  }

  async create(input: { name?: string | null; provider: string }): Promise<ApiSession> {
    const at = isoNow(this.now);
    const session: ApiSession = { id: newId('ses'), name: input.name ?? null, provider: input.provider, created_at: at, last_used_at: at, turn_count: 0 };
    const evicted = await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [SESSIONS_LOCK]);
      const { rows: [count] } = await tx.query<{ n: number }>('SELECT count(*) AS n FROM api_sessions');
      const evicted = count!.n >= this.max ? await this.evictOne(tx) : null;
      await tx.query('INSERT INTO api_sessions (id, name, provider, created_at, last_used_at) VALUES ($1, $2, $3, $4, $4)', [
        session.id, session.name, session.provider, at,
      ]);
      return evicted;
    });
    if (evicted !== null) this.onEnd(evicted);
    return session;
  }

  async get(id: string): Promise<ApiSession | null> {
    return (await this.db.query<ApiSession>(`SELECT ${COLUMNS} FROM api_sessions WHERE id = $1`, [id])).rows[0] ?? null;
  }

  async touch(id: string): Promise<void> {
    await this.db.query(`UPDATE api_sessions SET last_used_at = $2, used = nextval('api_sessions_used') WHERE id = $1`, [id, isoNow(this.now)]);
  }

  async addTurns(id: string, count: number): Promise<void> {
    await this.db.query('UPDATE api_sessions SET turn_count = turn_count + $2 WHERE id = $1', [id, count]);
  }

  async list(limit: number): Promise<ApiSession[]> {
    return (await this.db.query<ApiSession>(`SELECT ${COLUMNS} FROM api_sessions ORDER BY used DESC LIMIT $1`, [limit])).rows;
  }

  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM api_sessions')).rows[0]!.n;
  }

  async delete(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM api_sessions WHERE id = $1', [id]);
    if (rowCount !== 1) return false;
    this.onEnd(id);
    return true;
  }

  /** Inside the creating transaction: removes the least recently used idle session and returns its id. */
  private async evictOne(tx: Queryable): Promise<string> {
    const now = isoNow(this.now);
    for (let after = 0; ;) {
      const { rows } = await tx.query<{ id: string; used: number }>(`SELECT id, used FROM api_sessions s WHERE used > $1
        AND NOT EXISTS (SELECT 1 FROM session_claims c WHERE c.session_id = s.id AND c.expires_at > $3) ORDER BY used LIMIT $2`,
        [after, EVICTION_BATCH, now]);
      const idle = rows.find((row) => !this.isBusy(row.id));
      if (idle) {
        await tx.query('DELETE FROM api_sessions WHERE id = $1', [idle.id]);
        return idle.id;
      }
      if (rows.length < EVICTION_BATCH) break;
      after = rows.at(-1)!.used;
    }
    throw new SessionsFullError(this.max);
  }
}
