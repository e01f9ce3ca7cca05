import type { WebSession, WebSessionStore } from '../ports/web-sessions.js';
import { newId, randomToken } from '../../security/ids/tokens.js';
import type { WebSessionStoreOptions } from '../ports/storage.js';
import { isSessionToken, sessionTokenDigest as digest } from './web-session-token.js';

export type InMemoryWebSessionStoreOptions = WebSessionStoreOptions;

/**
 * In-memory web sessions, keyed by the digest of the session token (`sessionTokenDigest`).
 *
 * Every session lives exactly `ttlSeconds`, so the Map's insertion order is also expiry order:
 * expired sessions are swept from the front on each create and lookup (no timer to stop), and the
 * oldest session is the one evicted when the bound is reached.
 */
export class InMemoryWebSessionStore implements WebSessionStore {
  private readonly sessions = new Map<string, WebSession>();
  private readonly ttlMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: InMemoryWebSessionStoreOptions) {
    this.ttlMs = options.ttlSeconds * 1000;
    this.maxSessions = options.maxSessions ?? 1000;
    this.now = options.now ?? Date.now;
  }

  get ttlSeconds(): number {
    return this.ttlMs / 1000;
  }

  /** Live sessions (after sweeping the expired ones). */
  get size(): number {
    this.sweep(this.now());
    return this.sessions.size;
  }

  async create(): Promise<{ token: string; session: WebSession }> {
    const now = this.now();
    this.sweep(now);
    while (this.sessions.size >= this.maxSessions) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    const token = randomToken(32);
    const session: WebSession = { id: newId('ws'), csrfToken: randomToken(32), createdAt: now, expiresAt: now + this.ttlMs };
    this.sessions.set(digest(token), session);
    return { token, session };
  }

  async lookup(token: string): Promise<WebSession | null> {
    if (!isSessionToken(token)) return null;
    const now = this.now();
    this.sweep(now);
    const key = digest(token);
    const session = this.sessions.get(key);
    if (session === undefined) return null;
    if (session.expiresAt <= now) {
      this.sessions.delete(key);
      return null;
    }
    return session;
  }

  async revoke(token: string): Promise<boolean> {
    if (!isSessionToken(token)) return false;
    return this.sessions.delete(digest(token));
  }

  private sweep(now: number): void {
    for (const [key, session] of this.sessions) {
      if (session.expiresAt > now) return;
      this.sessions.delete(key);
    }
  }
}
