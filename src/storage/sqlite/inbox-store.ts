import type { InboxAcceptOutcome, InboxAcceptRules, InboxClaim, InboxMessage, InboxStore, NewInboxMessage } from '../ports/inbox.js';
import type { Database } from './database.js';
import { EXPIRED_PER_RECORD, inboxMessageOf, sameContent, type InboxRow } from '../shared/inbox-rows.js';
import { removeInSlices } from '../shared/slices.js';
import type { SqliteAuditStore } from './audit-store.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

interface QueuedStart {
  runId: string;
  next: InboxClaim | undefined;
  resolve(next: InboxMessage | undefined): void;
  reject(error: unknown): void;
}

interface WaitingCounts {
  total: number;
  bySender: Map<string, number>;
}

/**
 * Channel messages on the service's SQLite file. The replay check, the duplicate check, the
 * capacity check, the insert and the signature's record run in one write of the unit of work, so
 * two requests with the same key or signature can never both be stored, and the capacity is exact.
 */
export class SqliteInboxStore implements InboxStore {
  /** One process owns the file: its dispatcher runs a sender's messages one at a time. */
  readonly sharedByReplicas = false;
  private readonly stmt;
  /**
   * Waiting messages per channel, and per sender within it: counted once, then kept by this store's
   * own writes (one process owns the file: the home lock), so neither the capacity check nor the
   * question whether a sender has a message waiting costs a query on the hot path. A rolled back
   * batch makes them count again. Only senders with a waiting message are kept, so it is bounded
   * by the capacity.
   */
  private readonly waitingCounts = new Map<string, WaitingCounts>();
  /**
   * The row of each waiting message this store accepted, by run id, kept like the counts: starting
   * it then costs one UPDATE by row id, not a lookup first. A message not in it (accepted before
   * a restart or a rollback) is looked up. Bounded by the capacity, as the waiting messages are.
   */
  private readonly waitingRows = new Map<string, { id: number; channel: string; sender: string }>();
  /** Starts asked for whose write has not run yet; see `startQueued`. */
  private starts: QueuedStart[] = [];

  constructor(
    private readonly database: Database,
    private readonly uow: SqliteUnitOfWork,
    /** Where `accept` writes the acceptance's audit event, in the same write. */
    private readonly audit: Pick<SqliteAuditStore, 'appendInWrite'>,
  ) {
    const db = database.db;
    this.stmt = {
      // TEXT compares bytewise here: request ids and senders match exactly (case and all).
      earlier: db.prepare(`SELECT body_digest AS digest FROM channel_inbox
        WHERE channel = ? AND sender = ? AND request_id = ? AND received_at >= ? LIMIT 1`),
      signatureLive: db.prepare('SELECT 1 FROM channel_signatures WHERE channel = ? AND signature = ? AND expires_at > ?').pluck(),
      // The live check ran in this same write: an existing row here has expired and is renewed.
      recordSignature: db.prepare(`INSERT INTO channel_signatures (channel, signature, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (channel, signature) DO UPDATE SET expires_at = excluded.expires_at`),
      pruneSignatures: db.prepare(`DELETE FROM channel_signatures WHERE id IN (
          SELECT id FROM channel_signatures WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`),
      waitingBySender: db.prepare('SELECT sender, count(*) AS n FROM channel_inbox WHERE channel = ? AND waiting = 1 GROUP BY sender'),
      // Positional: no object built and no name looked up per message on the webhook's hot path.
      insert: db.prepare(`INSERT INTO channel_inbox
        (channel, sender, content, metadata, received_at, request_id, run_id, body_digest, claimed_by, claimed_until)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      waiting: db.prepare(`SELECT id, channel, sender, content, metadata, received_at, request_id, run_id
        FROM channel_inbox WHERE channel = ? AND waiting = 1 ORDER BY id LIMIT ?`),
      // A waiting message's row when `waitingRows` does not know it (accepted before a restart or a rollback).
      startable: db.prepare('SELECT id, channel, sender FROM channel_inbox WHERE run_id = ? AND waiting = 1'),
      // The run keeps its own (censored) copy of the text; this one is no longer needed.
      started: db.prepare(`UPDATE channel_inbox SET waiting = 0, content = '' WHERE id = ? AND waiting = 1`),
      // The sender's oldest waiting message, and its claim when it is free (the same rule as
      // `claim`, for one sender). Read, then claimed by id in the same write: an UPDATE … RETURNING
      // costs as much again (SQLite gathers its rows in a temporary table first), on the path of
      // every message whose sender had another one waiting.
      nextOfSender: db.prepare(`SELECT id, channel, sender, content, metadata, received_at, request_id, run_id,
          claimed_until IS NULL OR claimed_until <= ? OR claimed_by = ? AS free
        FROM channel_inbox WHERE channel = ? AND sender = ? AND waiting = 1 ORDER BY id LIMIT 1`),
      claimById: db.prepare('UPDATE channel_inbox SET claimed_by = ?, claimed_until = ? WHERE id = ?'),
      // The oldest waiting message of each sender that is free (see InboxStore.claim).
      claim: db.prepare(`UPDATE channel_inbox SET claimed_by = @owner, claimed_until = @until
        WHERE id IN (
          SELECT m.id FROM channel_inbox m
          WHERE m.channel = @channel AND m.waiting = 1
            AND NOT EXISTS (SELECT 1 FROM channel_inbox e WHERE e.channel = m.channel AND e.sender = m.sender AND e.waiting = 1 AND e.id < m.id)
            AND (m.claimed_until IS NULL OR m.claimed_until <= @now OR m.claimed_by = @owner)
          ORDER BY m.id LIMIT @limit)
        RETURNING id, channel, sender, content, metadata, received_at, request_id, run_id`),
      release: db.prepare('UPDATE channel_inbox SET claimed_until = NULL WHERE claimed_by = ? AND waiting = 1'),
      // Oldest first by id (arrival order): no index on age is kept for a daily pass.
      pruneBatch: db.prepare(`DELETE FROM channel_inbox WHERE id IN (
          SELECT id FROM channel_inbox WHERE waiting = 0 AND received_at < ? ORDER BY id LIMIT ?)`),
    };
    uow.onRollback(() => this.forgetWaiting());
  }

  accept(message: NewInboxMessage, rules: InboxAcceptRules): Promise<InboxAcceptOutcome> {
    const { signature, audit } = rules;
    return this.countedWrite((): InboxAcceptOutcome => {
      if (signature && this.stmt.signatureLive.get(message.channel, signature.signature, signature.now)) return 'replay';
      if (message.request_id !== null) {
        const earlier = this.stmt.earlier.get(message.channel, message.sender, message.request_id, rules.duplicatesSince) as { digest: string | null } | undefined;
        if (earlier && !sameContent(earlier.digest, message.body_digest)) return 'conflict';
        if (earlier) {
          if (audit) this.audit.appendInWrite(audit(true));
          return 'duplicate';
        }
      }
      const waiting = this.waitingOf(message.channel);
      if (waiting.total >= rules.capacity) return 'full';
      const before = waiting.bySender.get(message.sender) ?? 0;
      // Nothing of its sender waits before it: it may run at once, so it is claimed as it is stored.
      const claim = before === 0 ? rules.claim : undefined;
      const m = message;
      const { lastInsertRowid } = this.stmt.insert.run(m.channel, m.sender, m.content, JSON.stringify(m.metadata), m.received_at,
        m.request_id, m.run_id, m.body_digest ?? null, claim?.owner ?? null, claim?.until ?? null);
      if (signature) {
        this.stmt.recordSignature.run(message.channel, signature.signature, signature.expiresAt);
        // Two expired records go with each new one: the table stays about the size of the live window.
        this.stmt.pruneSignatures.run(signature.pruneBefore, EXPIRED_PER_RECORD);
      }
      if (audit) this.audit.appendInWrite(audit(false));
      waiting.total++;
      waiting.bySender.set(message.sender, before + 1);
      this.waitingRows.set(m.run_id, { id: Number(lastInsertRowid), channel: m.channel, sender: m.sender });
      return claim ? 'claimed' : 'queued';
    });
  }

  /** A write that keeps the counts: should it fail (its savepoint rolled back), they are counted again. */
  private countedWrite<T>(write: () => T): Promise<T> {
    return this.uow.run(() => {
      try {
        return write();
      } catch (error) {
        this.forgetWaiting();
        throw error;
      }
    });
  }

  /** After a write failed or rolled back: what is waiting is read from the table again. */
  private forgetWaiting(): void {
    this.waitingCounts.clear();
    this.waitingRows.clear();
  }

  /** The channel's waiting counts, counted from the table the first time (or after a rollback). */
  private waitingOf(channel: string): WaitingCounts {
    let counts = this.waitingCounts.get(channel);
    if (counts === undefined) {
      const rows = this.stmt.waitingBySender.all(channel) as { sender: string; n: number }[];
      counts = { total: rows.reduce((sum, row) => sum + row.n, 0), bySender: new Map(rows.map((row) => [row.sender, row.n])) };
      this.waitingCounts.set(channel, counts);
    }
    return counts;
  }

  async waiting(channel: string, limit: number): Promise<InboxMessage[]> {
    return (this.stmt.waiting.all(channel, limit) as InboxRow[]).map(inboxMessageOf);
  }

  markStarted(runId: string, next?: InboxClaim): Promise<InboxMessage | void> {
    return new Promise((resolve, reject) => {
      this.starts.push({ runId, next, resolve, reject });
      if (this.starts.length === 1) this.startQueued();
    });
  }

  /**
   * One write for every start queued until it runs (the dispatcher settles a turn's messages at
   * once): one savepoint and its page copies for all of them, not one each. Should it fail, all of
   * them are rolled back and rejected alike (their runs exist: the next claim marks them).
   */
  private startQueued(): void {
    let group: QueuedStart[] = [];
    this.countedWrite(() => {
      group = this.starts;
      this.starts = [];
      return group.map((start) => this.start(start.runId, start.next));
    }).then(
      (nexts) => group.forEach((start, i) => {
        const next = nexts[i];
        start.resolve(next ? inboxMessageOf(next) : undefined);
      }),
      (error: unknown) => {
        // A write that never ran (the database closed) took nothing: what waits for it is rejected.
        if (group.length === 0) [group, this.starts] = [this.starts, []];
        for (const start of group) start.reject(error);
      },
    );
  }

  /** One message's start, inside the write; returns the sender's next message, claimed, when `next` asks for it. */
  private start(runId: string, next: InboxClaim | undefined): InboxRow | undefined {
    const started = this.waitingRows.get(runId) ?? (this.stmt.startable.get(runId) as { id: number; channel: string; sender: string } | undefined);
    if (started === undefined) return undefined;
    this.waitingRows.delete(runId);
    if (this.stmt.started.run(started.id).changes === 0) return undefined;
    const counted = this.waitingCounts.get(started.channel);
    // Counted for the first time only now, the counts already leave this message out.
    const left = counted ? leftAfterStart(counted, started.sender) : (this.waitingOf(started.channel).bySender.get(started.sender) ?? 0);
    // The sender's next message, if one waits: most senders have none, and then no query asks.
    if (next === undefined || left === 0) return undefined;
    const { channel, sender } = started;
    const row = this.stmt.nextOfSender.get(next.now, next.owner, channel, sender) as (InboxRow & { free: number }) | undefined;
    if (row === undefined || row.free === 0) return undefined;
    this.stmt.claimById.run(next.owner, next.until, row.id);
    const { id, content, metadata, received_at, request_id, run_id } = row;
    return { id, channel, sender, content, metadata, received_at, request_id, run_id };
  }

  async claim(channel: string, claim: InboxClaim): Promise<InboxMessage[]> {
    const rows = await this.uow.run(() => this.stmt.claim.all({ channel, ...claim }) as InboxRow[]);
    return rows.map(inboxMessageOf).sort((a, b) => a.id - b.id);
  }

  async release(owner: string): Promise<void> {
    await this.uow.run(() => this.stmt.release.run(owner));
  }

  pruneStartedBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return removeInSlices(
      (limit) => this.stmt.pruneBatch.run(cutoff, limit).changes,
      { signal: options.signal, isOpen: () => this.database.open },
    );
  }

  pruneSignaturesBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return removeInSlices(
      (limit) => this.stmt.pruneSignatures.run(cutoff, limit).changes,
      { signal: options.signal, isOpen: () => this.database.open },
    );
  }
}

/** Takes a started message of `sender` off the counts; returns how many of the sender's still wait. */
function leftAfterStart(counts: WaitingCounts, sender: string): number {
  const left = (counts.bySender.get(sender) ?? 1) - 1;
  counts.total--;
  if (left > 0) counts.bySender.set(sender, left);
  else counts.bySender.delete(sender);
  return left;
}
