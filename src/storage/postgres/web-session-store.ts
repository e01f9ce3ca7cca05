import type { WebSession, WebSessionStore } from '../ports/web-sessions.js';
import { newId, randomToken } from '../../security/ids/tokens.js';
import type { WebSessionStoreOptions } from '../ports/storage.js';
import { isSessionToken, sessionTokenDigest } from '../shared/web-session-token.js';
import type { PgDatabase } from './database.js';
import { WEB_SESSIONS_LOCK } from './locks.js';

interface WebSessionRow {
  id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/**
 * Browser sessions on PostgreSQL: a console login holds on every replica behind the load
 * balancer. Creating one sweeps the expired ones and evicts the oldest past the bound, under an
 * advisory lock so replicas logging people in at once keep the bound exact.
 */
export class PgWebSessionStore implements WebSessionStore {
  readonly ttlSeconds: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(private readonly db: PgDatabase, options: WebSessionStoreOptions) {
    this.ttlSeconds = options.ttlSeconds;
    this.maxSessions = options.maxSessions ?? 1000;
    this.now = options.now ?? Date.now;
  }

  async create(): Promise<{ token: string; session: WebSession }> {
    const now = this.now();
    const token = randomToken(32);
    const session: WebSession = { id: newId('ws'), csrfToken: randomToken(32), createdAt: now, expiresAt: now + this.ttlSeconds * 1000 };
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [WEB_SESSIONS_LOCK]);
      await tx.query('DELETE FROM web_sessions WHERE expires_at <= $1', [now]);
      // Oldest first, leaving room for the new one.
      await tx.query(`DELETE FROM web_sessions WHERE seq IN (
        SELECT seq FROM web_sessions ORDER BY seq
        LIMIT greatest(0, (SELECT count(*) FROM web_sessions) - $1 + 1))`, [this.maxSessions]);
      await tx.query('INSERT INTO web_sessions (token_digest, id, csrf_token, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
        sessionTokenDigest(token), session.id, session.csrfToken, session.createdAt, session.expiresAt,
      ]);
    });
    return { token, session };
  }

  async lookup(token: string): Promise<WebSession | null> {
    if (!isSessionToken(token)) return null;
    const { rows } = await this.db.query<WebSessionRow>(
      'SELECT id, csrf_token, created_at, expires_at FROM web_sessions WHERE token_digest = $1 AND expires_at > $2', [sessionTokenDigest(token), this.now()]);
    const row = rows[0];
    return row ? { id: row.id, csrfToken: row.csrf_token, createdAt: row.created_at, expiresAt: row.expires_at } : null;
  }

  async revoke(token: string): Promise<boolean> {
    if (!isSessionToken(token)) return false;
    return (await this.db.query('DELETE FROM web_sessions WHERE token_digest = $1', [sessionTokenDigest(token)])).rowCount === 1;
  }
}
