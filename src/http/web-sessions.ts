import { createHash } from 'node:crypto';
import { newId, randomToken } from '../security/tokens.js';

/** A browser's server-side session (spec: "Web session"). The session token itself is never kept. */
export interface WebSession {
  /** Public handle for audit rows; not a credential. */
  readonly id: string;
  /** Sent by the console in X-CSRF-Token on unsafe requests. */
  readonly csrfToken: string;
  readonly createdAt: number;
  /** Absolute: createdAt + TTL. Activity does not extend it. */
  readonly expiresAt: number;
}

export interface WebSessionStoreOptions {
  ttlSeconds: number;
  /** Upper bound on live sessions; the oldest is evicted first. */
  maxSessions?: number;
  now?: () => number;
}

/** 32 random bytes in base64url, as `randomToken()` makes them. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * In-memory web sessions, keyed by SHA-256 of the session token: a lookup hashes what the client
 * offered and finds the entry by digest, so the raw secret is never compared byte by byte (no
 * timing signal) and a dump of the map holds no usable cookie.
 *
 * Every session lives exactly `ttlSeconds`, so the Map's insertion order is also expiry order:
 * expired sessions are swept from the front on each create and lookup (no timer to stop), and the
 * oldest session is the one evicted when the bound is reached.
 */
export class WebSessionStore {
  private readonly sessions = new Map<string, WebSession>();
  private readonly ttlMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: WebSessionStoreOptions) {
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

  /** A new session and its token; the token goes into the cookie and is not kept here. */
  create(): { token: string; session: WebSession } {
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

  /** The live session for `token`, or null (unknown, malformed or expired). */
  lookup(token: string): WebSession | null {
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

  /** Ends the session `token` names; true when there was one. */
  revoke(token: string): boolean {
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

/**
 * The value of cookie `name` in a Cookie header, or null. Only the one cookie is looked for; other
 * cookies are skipped without decoding (our tokens are URL-safe and need none).
 */
export function readCookie(header: string | undefined, name: string): string | null {
  if (header === undefined || header === '') return null;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    if (eq !== -1 && eq < end && header.slice(start, eq).trim() === name) {
      let value = header.slice(eq + 1, end).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      return value;
    }
    start = end + 1;
  }
  return null;
}
