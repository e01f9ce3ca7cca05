/** The columns of `session_claims`, in the order a claim is inserted. */
export const CLAIM_COLUMNS = 'session_id, holder_id, kind, owner, expires_at';

/**
 * The CTEs `claim` and `freed` of a statement that takes a session's claim (the parameters are
 * placeholders or typed SQL values): `claim` inserts it or takes over an expired one and returns
 * the session when taken; `freed` then deletes every budget hold on that session, in the same
 * statement (no commit of its own).
 *
 * Only the work holding a session's claim makes calls on it, and a call's hold is taken after its
 * claim (`CostStore.reserve`): so when a claim is taken, whatever the session still holds was left
 * by earlier holders — a replica killed mid-call whose claim lapsed and was taken over before any
 * reaper freed it (`reapExpired` frees the holds of the claims it reaps), a replica restarted under
 * the same id (`releaseOwn`), a hold whose release failed — and would refuse the session's next
 * calls until it expired (15 min). It cannot be the new holder's: that one reserves only once this
 * statement has committed. Nor a concurrent taker's: the one that wins holds the claim row's lock
 * until it commits, and the loser's `claim` returns nothing (its ON CONFLICT sees a claim that has
 * not expired), so the loser's `freed` deletes nothing.
 */
export const TAKE_CLAIM = (session: string, holder: string, kind: string, owner: string, expiresAt: string, now: string): string => `
  claim AS (
    INSERT INTO session_claims (${CLAIM_COLUMNS}) VALUES (${session}, ${holder}, ${kind}, ${owner}, ${expiresAt})
    ON CONFLICT (session_id) DO UPDATE SET holder_id = excluded.holder_id, kind = excluded.kind, owner = excluded.owner,
      expires_at = excluded.expires_at
    WHERE session_claims.expires_at <= ${now}
    RETURNING session_id),
  freed AS (DELETE FROM cost_holds WHERE session_id IN (SELECT session_id FROM claim))`;
