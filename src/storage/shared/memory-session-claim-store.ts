import type { SessionClaim, SessionClaimStore } from '../ports/sessions.js';

/**
 * Session claims in this process, for a store that one process owns (SQLite: the home lock). The
 * runtime's own slots already keep one run per session, so this adds no database write per run or
 * chat; holds one entry per run or chat in flight. Every claim is this owner's, so none is ever
 * another replica's to reap.
 */
export class InMemorySessionClaimStore implements SessionClaimStore {
  private readonly claims = new Map<string, SessionClaim>();

  constructor(private readonly owner: string) {}

  async acquire(claim: Omit<SessionClaim, 'owner'>, now: string): Promise<boolean> {
    const current = this.claims.get(claim.session_id);
    if (current && current.expires_at > now) return false;
    this.claims.set(claim.session_id, { ...claim, owner: this.owner });
    return true;
  }

  async release(sessionId: string, holderId: string): Promise<void> {
    if (this.claims.get(sessionId)?.holder_id === holderId) this.claims.delete(sessionId);
  }

  async renew(holderIds: string[], expiresAt: string): Promise<void> {
    const renewed = new Set(holderIds);
    for (const claim of this.claims.values()) {
      if (renewed.has(claim.holder_id)) claim.expires_at = expiresAt;
    }
  }

  async holder(sessionId: string, now: string): Promise<SessionClaim | null> {
    const claim = this.claims.get(sessionId);
    return claim && claim.expires_at > now ? { ...claim } : null;
  }

  async releaseOwn(): Promise<void> {
    this.claims.clear();
  }

  async reapExpired(): Promise<SessionClaim[]> {
    return [];
  }

  /** One process: its runs end with it, and the next start ends what it left (`recoverInterrupted`). */
  async reapUnclaimed(): Promise<string[]> {
    return [];
  }

  async renewedBy(owner: string): Promise<string | null> {
    if (owner !== this.owner) return null;
    let latest: string | null = null;
    for (const claim of this.claims.values()) if (latest === null || claim.expires_at > latest) latest = claim.expires_at;
    return latest;
  }

  async reapOwner(): Promise<SessionClaim[]> {
    return [];
  }
}
