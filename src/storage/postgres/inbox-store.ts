import type { InboxAcceptOutcome, InboxAcceptRules, InboxMessage, InboxStore, NewInboxMessage } from '../../channels/inbox/types.js';
import { removeInSlices } from '../slices.js';
import type { PgDatabase } from './database.js';
import { INBOX_LOCK_CLASS } from './locks.js';

type InboxRow = Omit<InboxMessage, 'metadata'> & { metadata: string };

/**
 * Channel messages on PostgreSQL, accepted by any replica. The duplicate check, the capacity check
 * and the insert run in one transaction under the channel's advisory lock, so two requests with
 * the same key (on any replicas) can never both be stored, and the capacity is exact.
 */
export class PgInboxStore implements InboxStore {
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
    return rows.map((row) => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> }));
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
