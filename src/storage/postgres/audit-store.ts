import { eventHashBody, GENESIS_HASH } from '../ports/audit-chain.js';
import type {
  AppendOptions, AuditEvent, AuditPage, AuditQuery, AuditStats, AuditStore, AuditTimeRange, ChainedAuditEvent, ChainVerdict, PrunedRange,
} from '../ports/audit.js';
import { rowToChained, verifyStoredChain, type StoredAuditRow } from '../shared/audit-rows.js';
import { StorageUnavailableError } from '../ports/errors.js';
import { removeInSlices } from '../shared/slices.js';
import { AUDIT_COLUMNS, runAuditQuery } from './audit-query.js';
import type { PgDatabase, Queryable, Statement } from './database.js';
import { CHAIN_LOCK } from './locks.js';

/** Events written in one transaction at most: one lock and one INSERT (that reads the head) for all of them. */
const APPEND_BATCH = 500;
/** Events that may wait for their transaction before new ones are refused (the database is not keeping up). */
const MAX_WAITING = 20_000;
/**
 * How long an event nothing waits on (`AppendOptions.batched`) waits for the chain's next
 * transaction before it starts one itself: a run's end and a proxied request's record then share
 * a commit with other events instead of costing one each.
 */
export const BATCHED_WAIT_MS = 50;
/** Rows read per statement when walking the chain (verify, export). */
const CHAIN_BATCH = 1_000;

/** Columns sent as they are; `prev_hash` and `hash` are computed in the database (`chainedInsert`). */
const FIELDS = ['id', 'timestamp', 'event_type', 'category', 'result', 'severity', 'actor', 'source', 'subsystem', 'action',
  'session_id', 'task_id', 'detail'] as const;
const BODIES = `$${FIELDS.length + 1}::text[]`;
/**
 * Many events in one statement, linked to the chain's head: one array per column, unnested in order
 * (`seq` follows that order), and the hashes chained by a recursive query over each event's
 * `eventHashBody` — SHA-256 of `["<prev>",` followed by it is exactly `eventHash(prev, event)`.
 */
const INSERT_CHAINED = `WITH RECURSIVE
  head AS (SELECT coalesce((SELECT hash FROM audit_events ORDER BY seq DESC LIMIT 1), '${GENESIS_HASH}') AS hash),
  chain (n, prev_hash, hash) AS (
    SELECT 0::bigint, NULL::text, hash FROM head
    UNION ALL
    SELECT n + 1, hash, encode(sha256(convert_to('["' || hash || '",' || (${BODIES})[n + 1], 'UTF8')), 'hex')
      FROM chain WHERE n < cardinality(${BODIES})
  )
  INSERT INTO audit_events (${FIELDS.join(', ')}, prev_hash, hash)
  SELECT ${FIELDS.map((f) => `e.${f}`).join(', ')}, chain.prev_hash, chain.hash
    FROM unnest(${FIELDS.map((_, i) => `$${i + 1}::text[]`).join(', ')}) WITH ORDINALITY AS e(${FIELDS.join(', ')}, n)
    JOIN chain ON chain.n = e.n
    ORDER BY e.n`;

const TAKE_CHAIN_LOCK: Statement = { text: 'SELECT pg_advisory_xact_lock($1)', values: [CHAIN_LOCK] };

interface Waiting {
  event: AuditEvent;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The INSERT that links `events` to the newest stored event, to run under the chain lock. The head
 * is read by the INSERT itself, never kept in memory, because other replicas append to the same
 * chain; the lock is held to the commit, so no other writer can link to the same head, and `seq`s
 * are drawn in chain order. It must be a statement of its own after the one that takes the lock:
 * a statement reads what was committed when it started, so only one that starts once the lock is
 * held sees the head the previous holder committed.
 */
function chainedInsert(events: readonly AuditEvent[]): Statement {
  const columns: (string | null)[][] = FIELDS.map(() => []);
  const bodies: string[] = [];
  for (const event of events) {
    FIELDS.forEach((field, i) => columns[i]!.push(field === 'detail' ? JSON.stringify(event.detail) : event[field]));
    bodies.push(eventHashBody(event));
  }
  return { text: INSERT_CHAINED, values: [...columns, bodies] };
}

/**
 * The audit log on PostgreSQL: one hash chain for every replica. Events emitted while a
 * transaction is in flight wait and go together in the next one (in emit order), which keeps the
 * chain's throughput up when the lock is contended by several replicas. A batched event
 * (`AppendOptions.batched`) waits up to `BATCHED_WAIT_MS` for another to start that transaction.
 */
export class PgAuditStore implements AuditStore {
  private waiting: Waiting[] = [];
  private flushing: Promise<void> | null = null;
  /** Starts the transaction of batched events when nothing else has (`BATCHED_WAIT_MS`). */
  private lingering: NodeJS.Timeout | null = null;

  constructor(private readonly db: PgDatabase) {}

  append(event: AuditEvent, options: AppendOptions = {}): Promise<void> {
    if (this.waiting.length >= MAX_WAITING) return Promise.reject(new StorageUnavailableError());
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ event, resolve, reject });
      if (options.batched !== true) this.startFlush();
      // A transaction in flight takes it next; otherwise it waits for an event that cannot wait.
      else if (!this.flushing) this.lingering ??= setTimeout(() => this.startFlush(), BATCHED_WAIT_MS).unref();
    });
  }

  private startFlush(): void {
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = null;
    this.flushing ??= this.flush();
  }

  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM audit_events')).rows[0]!.n;
  }

  async stats(): Promise<AuditStats> {
    const { rows } = await this.db.query<AuditStats>(`SELECT count(*) AS count, min(timestamp) AS oldest, max(timestamp) AS newest
      FROM audit_events`);
    return rows[0]!;
  }

  query(query: AuditQuery): Promise<AuditPage> {
    return runAuditQuery(this.db, query);
  }

  /** Walks the chain in one snapshot: events other replicas append or prune meanwhile are not seen half-way. */
  verify(): Promise<ChainVerdict> {
    return this.db.transaction(async (tx): Promise<ChainVerdict> => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return verifyStoredChain(chainBatches(tx));
    });
  }

  async *exportChain(range: AuditTimeRange): AsyncIterable<ChainedAuditEvent> {
    const bound = async (sql: string, value: string) => (await this.db.query<{ seq: number }>(sql, [value])).rows[0]?.seq;
    const from = range.since === undefined ? 0
      : await bound('SELECT seq FROM audit_events WHERE timestamp >= $1 ORDER BY timestamp, seq LIMIT 1', range.since);
    const through = range.until === undefined ? Number.MAX_SAFE_INTEGER
      : await bound('SELECT seq FROM audit_events WHERE timestamp < $1 ORDER BY timestamp DESC, seq DESC LIMIT 1', range.until);
    if (from === undefined || through === undefined) return;
    for (let after = from - 1; ;) {
      const { rows } = await this.db.query<StoredAuditRow & { seq: number }>(`SELECT seq, ${AUDIT_COLUMNS} FROM audit_events
        WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3`, [after, through, CHAIN_BATCH]);
      yield* rows.map(rowToChained);
      if (rows.length < CHAIN_BATCH) return;
      after = rows.at(-1)!.seq;
    }
  }

  /**
   * Each slice, in one transaction under the chain lock: removes the oldest events (up to the first
   * that is not older than the cutoff) and appends the record of what went, linked to the head.
   */
  pruneBefore(cutoff: string, record: (range: PrunedRange) => AuditEvent, options: { signal?: AbortSignal } = {}): Promise<number> {
    return removeInSlices((limit) => this.db.transaction(async (tx) => {
      await tx.query(TAKE_CHAIN_LOCK.text, TAKE_CHAIN_LOCK.values);
      const { rows: oldest } = await tx.query<{ seq: number; timestamp: string; hash: string }>(
        'SELECT seq, timestamp, hash FROM audit_events ORDER BY seq LIMIT $1', [limit]);
      const newer = oldest.findIndex((row) => row.timestamp >= cutoff);
      const rows = newer === -1 ? oldest : oldest.slice(0, newer);
      const last = rows.at(-1);
      if (!last) return 0;
      await tx.query('DELETE FROM audit_events WHERE seq <= $1', [last.seq]);
      const insert = chainedInsert([record({
        removed: rows.length, last_hash: last.hash, first_timestamp: rows[0]!.timestamp, last_timestamp: last.timestamp,
      })]);
      await tx.query(insert.text, insert.values);
      // Stopping at a newer event returns fewer than asked, which ends the pruning.
      return rows.length;
    }), { signal: options.signal, isOpen: () => this.db.open });
  }

  /** Resolves once every event appended so far is stored (or has failed): the storage is closing. */
  async drain(): Promise<void> {
    if (this.lingering) this.startFlush();
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, APPEND_BATCH);
        await this.write(batch);
      }
    } finally {
      this.flushing = null;
    }
  }

  /**
   * One transaction for the batch. When it fails for a reason other than the database being
   * unreachable (an event the table refuses), each event is tried alone, so one bad event does not
   * take the others with it.
   */
  private async write(batch: Waiting[]): Promise<void> {
    try {
      await this.db.pipelinedTransaction([TAKE_CHAIN_LOCK, chainedInsert(batch.map((w) => w.event))]);
      for (const w of batch) w.resolve();
      return;
    } catch (error) {
      if (batch.length === 1 || error instanceof StorageUnavailableError) {
        for (const w of batch) w.reject(error);
        return;
      }
    }
    for (const w of batch) await this.write([w]);
  }
}

/** The whole chain, oldest first, `CHAIN_BATCH` rows per query. */
async function* chainBatches(tx: Queryable): AsyncIterable<(StoredAuditRow & { seq: number })[]> {
  for (let after = 0; ;) {
    const { rows } = await tx.query<StoredAuditRow & { seq: number }>(
      `SELECT seq, ${AUDIT_COLUMNS} FROM audit_events WHERE seq > $1 ORDER BY seq LIMIT $2`, [after, CHAIN_BATCH]);
    if (rows.length > 0) yield rows;
    if (rows.length < CHAIN_BATCH) return;
    after = rows.at(-1)!.seq;
  }
}
