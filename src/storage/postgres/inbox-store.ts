import type { InboxAcceptOutcome, InboxAcceptRules, InboxClaim, InboxMessage, InboxStore, NewInboxMessage } from '../ports/inbox.js';
import { EXPIRED_PER_RECORD, inboxMessageOf, sameContent, type InboxRow } from '../shared/inbox-rows.js';
import { removeInSlices } from '../shared/slices.js';
import type { PgAuditStore } from './audit-store.js';
import type { PgDatabase } from './database.js';
import { INBOX_LOCK_CLASS } from './locks.js';


/** Thrown inside the transaction to roll it back: another transaction recorded the signature first. */
class SignatureTaken extends Error {}

/**
 * Channel messages on PostgreSQL, accepted by any replica. The replay check, the duplicate check,
 * the capacity check, the insert and the signature's record run in one transaction under the
 * channel's advisory lock, so two requests with the same key or signature (on any replicas) can
 * never both be stored, and the capacity is exact. The signature's unique key holds on its own
 * too: a record that cannot be written rolls the message back and answers `replay`.
 */
export class PgInboxStore implements InboxStore {
  readonly sharedByReplicas = true;

  constructor(
    private readonly db: PgDatabase,
    /** Where an acceptance's audit event goes (see `accept`). */
    private readonly audit: Pick<PgAuditStore, 'append'>,
  ) {}

  /**
   * The acceptance's audit event is appended right after the message's commit, in the audit log's
   * own (batched) transactions, before this resolves. Linking it in this transaction would hold the
   * chain lock, which every replica's events share, under the channel's inbox lock: the accepts
   * queued behind both held the pool's connections, and the rest of the service starved (the
   * crash test's chats on PostgreSQL got no answer).
   */
  async accept(message: NewInboxMessage, rules: InboxAcceptRules): Promise<InboxAcceptOutcome> {
    const outcome = await this.store(message, rules);
    if (rules.audit && (outcome === 'queued' || outcome === 'duplicate')) await this.audit.append(rules.audit(outcome === 'duplicate'));
    return outcome;
  }

  private async store(message: NewInboxMessage, rules: InboxAcceptRules): Promise<InboxAcceptOutcome> {
    const { signature } = rules;
    try {
      return await this.db.transaction(async (tx): Promise<InboxAcceptOutcome> => {
        await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [INBOX_LOCK_CLASS, message.channel]);
        if (signature) {
          const { rowCount } = await tx.query(`SELECT 1 FROM channel_signatures WHERE channel = $1 AND signature = $2 AND expires_at > $3`,
            [message.channel, signature.signature, signature.now]);
          if (rowCount) return 'replay';
        }
        if (message.request_id !== null) {
          // text = text is bytewise under a deterministic collation: ids and senders match exactly.
          const { rows: [earlier] } = await tx.query<{ digest: string | null }>(`SELECT body_digest AS digest FROM channel_inbox
            WHERE channel = $1 AND sender = $2 AND request_id = $3 AND received_at >= $4 LIMIT 1`,
          [message.channel, message.sender, message.request_id, rules.duplicatesSince]);
          if (earlier) return sameContent(earlier.digest, message.body_digest) ? 'duplicate' : 'conflict';
        }
        const { rows: [waiting] } = await tx.query<{ n: number }>(
          'SELECT count(*) AS n FROM channel_inbox WHERE channel = $1 AND waiting', [message.channel]);
        if (waiting!.n >= rules.capacity) return 'full';
        await tx.query(`INSERT INTO channel_inbox (channel, sender, content, metadata, received_at, request_id, run_id, body_digest)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
          message.channel, message.sender, message.content, JSON.stringify(message.metadata), message.received_at, message.request_id, message.run_id,
          message.body_digest ?? null,
        ]);
        if (signature) {
          // An expired record is renewed; a live one (written by a transaction the lock did not
          // order before this one) is left alone, and this message is rolled back.
          const { rowCount } = await tx.query(`INSERT INTO channel_signatures (channel, signature, expires_at) VALUES ($1, $2, $3)
            ON CONFLICT (channel, signature) DO UPDATE SET expires_at = excluded.expires_at WHERE channel_signatures.expires_at <= $4`,
          [message.channel, signature.signature, signature.expiresAt, signature.now]);
          if (!rowCount) throw new SignatureTaken();
          await tx.query(`DELETE FROM channel_signatures WHERE id IN (
            SELECT id FROM channel_signatures WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)`, [signature.pruneBefore, EXPIRED_PER_RECORD]);
        }
        return 'queued';
      });
    } catch (error) {
      if (error instanceof SignatureTaken) return 'replay';
      throw error;
    }
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

  pruneSignaturesBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return removeInSlices(
      async (limit) => (await this.db.query(`DELETE FROM channel_signatures WHERE id IN (
          SELECT id FROM channel_signatures WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)`, [cutoff, limit])).rowCount ?? 0,
      { signal: options.signal, isOpen: () => this.db.open },
    );
  }
}
