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
 * Browser sessions, in the database: a login survives a restart and, where several replicas serve
 * one console, holds on every one. The session token itself is never stored, only a digest of it.
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
