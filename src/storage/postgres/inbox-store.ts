import type { InboxAcceptOutcome, InboxAcceptRules, InboxClaim, InboxMessage, InboxStore, NewInboxMessage } from '../../channels/inbox/types.js';
import { inboxMessageOf, type InboxRow } from '../inbox-rows.js';
import { removeInSlices } from '../slices.js';
import type { PgDatabase } from './database.js';
import { INBOX_LOCK_CLASS } from './locks.js';


/**
 * Channel messages on PostgreSQL, accepted by any replica. The duplicate check, the capacity check
 * and the insert run in one transaction under the channel's advisory lock, so two requests with
 * the same key (on any replicas) can never both be stored, and the capacity is exact.
 */
export class PgInboxStore implements InboxStore {
  readonly sharedByReplicas = true;

  constructor(private readonly db: PgDatabase) {}

  accept(message: NewInboxMessage, rules: InboxAcceptRules): Promise<InboxAcceptOutcome> {
    return this.db.transaction(async (tx): Promise<InboxAcceptOutcome> => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [INBOX_LOCK_CLASS, message.channel]);
      if (message.request_id !== null) {
        const { rowCount } = await tx.query(`SELECT 1 FROM channel_inbox
          WHERE channel = $1 AND request_id = $2 AND received_at >= $3 LIMIT 1`, [message.channel, message.request_id, rules.duplicatesSince]);
        if (rowCount) return 'duplicate';
      }
      const { rows: [waiting] } = await tx.query<{ n: number }>(
        'SELECT count(*) AS n FROM channel_inbox WHERE channel = $1 AND waiting', [message.channel]);
      if (waiting!.n >= rules.capacity) return 'full';
      await tx.query(`INSERT INTO channel_inbox (channel, sender, content, metadata, received_at, request_id, run_id)
        VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        message.channel, message.sender, message.content, JSON.stringify(message.metadata), message.received_at, message.request_id, message.run_id,
      ]);
      return 'queued';
    });
  }

  async waiting(channel: string, limit: number): Promise<InboxMessage[]> {
    const { rows } = await this.db.query<InboxRow>(`SELECT id, channel, sender, content, metadata, received_at, request_id, run_id
      FROM channel_inbox WHERE channel = $1 AND waiting ORDER BY id LIMIT $2`, [channel, limit]);
    return rows.map(inboxMessageOf);
  }

  /**
   * One statement: the candidates are locked as they are picked (`FOR UPDATE SKIP LOCKED`), so
   * replicas claiming at the same moment each get other messages, and none waits for another. A
   * sender's next message waits while the previous one's run is unfinished or still holds its
   * session, wherever it runs: started on another replica it would find the session busy. Only the
   * previous message is looked at: the ones before it ended before it was claimed.
   */
  async claim(channel: string, claim: InboxClaim): Promise<InboxMessage[]> {
    const { rows } = await this.db.query<InboxRow>(`UPDATE channel_inbox SET claimed_by = $2, claimed_until = $4
      WHERE id IN (
        SELECT m.id FROM channel_inbox m
        WHERE m.channel = $1 AND m.waiting
          AND NOT EXISTS (SELECT 1 FROM channel_inbox e WHERE e.channel = m.channel AND e.sender = m.sender AND e.waiting AND e.id < m.id)
          AND (m.claimed_until IS NULL OR m.claimed_until <= $3 OR m.claimed_by = $2)
          AND NOT EXISTS (
            SELECT 1 FROM (SELECT p.run_id FROM channel_inbox p WHERE p.channel = m.channel AND p.sender = m.sender AND p.id < m.id
              ORDER BY p.id DESC LIMIT 1) previous
            WHERE EXISTS (SELECT 1 FROM runs r WHERE r.id = previous.run_id AND r.status IN ('pending', 'running'))
              OR EXISTS (SELECT 1 FROM session_claims c WHERE c.holder_id = previous.run_id AND c.expires_at > $3))
        ORDER BY m.id LIMIT $5
        FOR UPDATE SKIP LOCKED)
      RETURNING id, channel, sender, content, metadata, received_at, request_id, run_id`, [channel, claim.owner, claim.now, claim.until, claim.limit]);
    return rows.map(inboxMessageOf).sort((a, b) => a.id - b.id);
  }

  async release(owner: string): Promise<void> {
    await this.db.query('UPDATE channel_inbox SET claimed_until = NULL WHERE claimed_by = $1 AND waiting', [owner]);
  }

  async markStarted(runId: string): Promise<void> {
    // The run keeps its own (censored) copy of the text; this one is no longer needed.
    await this.db.query(`UPDATE channel_inbox SET waiting = false, content = '' WHERE run_id = $1 AND waiting`, [runId]);
  }

  pruneStartedBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return removeInSlices(
      async (limit) => (await this.db.query(`DELETE FROM channel_inbox WHERE id IN (
          SELECT id FROM channel_inbox WHERE NOT waiting AND received_at < $1 ORDER BY id LIMIT $2)`, [cutoff, limit])).rowCount ?? 0,
      { signal: options.signal, isOpen: () => this.db.open },
    );
  }
}
