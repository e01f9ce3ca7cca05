import { createHash } from 'node:crypto';
import type { WebSession, WebSessionStore } from '../../http/web-sessions.js';
import { newId, randomToken } from '../../security/tokens.js';

/** 32 random bytes in base64url, as `randomToken()` makes them. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface InMemoryWebSessionStoreOptions {
  ttlSeconds: number;
  /** Upper bound on live sessions; the oldest is evicted first. */
  maxSessions?: number;
  now?: () => number;
}

/**
 * In-memory web sessions, keyed by SHA-256 of the session token: a lookup hashes what the client
 * offered and finds the entry by digest, so the raw secret is never compared byte by byte (no
 * timing signal) and a dump of the map holds no usable cookie.
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
    if (!TOKEN_SHAPE.test(token)) return null;
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
    if (!TOKEN_SHAPE.test(token)) return false;
    return this.sessions.delete(digest(token));
  }

  private sweep(now: number): void {
    for (const [key, session] of this.sessions) {
      if (session.expiresAt > now) return;
      this.sessions.delete(key);
    }
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

