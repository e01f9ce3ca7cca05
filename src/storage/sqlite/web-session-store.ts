import type { WebSession, WebSessionStore } from '../ports/web-sessions.js';
import { newId, randomToken } from '../../security/ids/tokens.js';
import type { WebSessionStoreOptions } from '../ports/storage.js';
import { isSessionToken, sessionTokenDigest } from '../shared/web-session-token.js';
import type { Database } from './database.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

interface WebSessionRow {
  id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/**
 * Browser sessions on the service's SQLite file, so a console login holds across a restart
 * (docs/api.md#browser-sessions-and-csrf). Only the digest of the token is stored. Creating one
 * purges the expired sessions and evicts the oldest past the bound, in the same write.
 */
export class SqliteWebSessionStore implements WebSessionStore {
  readonly ttlSeconds: number;
  private readonly maxSessions: number;
  private readonly now: () => number;
  private readonly stmt;

  constructor(database: Database, private readonly uow: SqliteUnitOfWork, options: WebSessionStoreOptions) {
    this.ttlSeconds = options.ttlSeconds;
    this.maxSessions = options.maxSessions ?? 1000;
    this.now = options.now ?? Date.now;
    const db = database.db;
    this.stmt = {
      purge: db.prepare('DELETE FROM web_sessions WHERE expires_at <= ?'),
      // Oldest first, leaving room for the new one.
      evict: db.prepare(`DELETE FROM web_sessions WHERE seq IN (
        SELECT seq FROM web_sessions ORDER BY seq LIMIT max(0, (SELECT count(*) FROM web_sessions) - ? + 1))`),
      insert: db.prepare('INSERT INTO web_sessions (token_digest, id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
      lookup: db.prepare('SELECT id, csrf_token, created_at, expires_at FROM web_sessions WHERE token_digest = ? AND expires_at > ?'),
      revoke: db.prepare('DELETE FROM web_sessions WHERE token_digest = ?'),
    };
  }

  async create(): Promise<{ token: string; session: WebSession }> {
    const now = this.now();
    const token = randomToken(32);
    const session: WebSession = { id: newId('ws'), csrfToken: randomToken(32), createdAt: now, expiresAt: now + this.ttlSeconds * 1000 };
    await this.uow.run(() => {
      this.stmt.purge.run(now);
      this.stmt.evict.run(this.maxSessions);
      this.stmt.insert.run(sessionTokenDigest(token), session.id, session.csrfToken, session.createdAt, session.expiresAt);
    });
    return { token, session };
  }

  async lookup(token: string): Promise<WebSession | null> {
    if (!isSessionToken(token)) return null;
    const row = this.stmt.lookup.get(sessionTokenDigest(token), this.now()) as WebSessionRow | undefined;
    return row ? { id: row.id, csrfToken: row.csrf_token, createdAt: row.created_at, expiresAt: row.expires_at } : null;
  }

  async revoke(token: string): Promise<boolean> {
    if (!isSessionToken(token)) return false;
    const result = await this.uow.run(() => this.stmt.revoke.run(sessionTokenDigest(token)));
    return result.changes === 1;
  }
}
