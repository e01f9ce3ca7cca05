
/** A browser's server-side session (docs/api.md#browser-sessions-and-csrf). The session token itself is never kept. */
export interface WebSession {
  /** Public handle for audit rows; not a credential. */
  readonly id: string;
  /** Sent by the console in X-CSRF-Token on unsafe requests. */
  readonly csrfToken: string;
  readonly createdAt: number;
  /** Absolute: createdAt + TTL. Activity does not extend it. */
  readonly expiresAt: number;
}

/**
 * Browser sessions. In memory on the embedded backend; shared where several replicas serve one
 * console. The session token itself is never stored, only a digest of it.
 */
export interface WebSessionStore {
  readonly ttlSeconds: number;
  /** A new session and its token; the token goes into the cookie and is not kept. */
  create(): Promise<{ token: string; session: WebSession }>;
  /** The live session for `token`, or null (unknown, malformed or expired). */
  lookup(token: string): Promise<WebSession | null>;
  /** Ends the session `token` names; true when there was one. */
  revoke(token: string): Promise<boolean>;
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
