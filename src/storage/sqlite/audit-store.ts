import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { eventHash, GENESIS_HASH } from '../ports/audit-chain.js';
import type {
  AppendOptions, AuditEvent, AuditPage, AuditQuery, AuditStats, AuditStore, AuditTimeRange, ChainedAuditEvent, ChainVerdict, PrunedRange,
} from '../ports/audit.js';
import { AuditKinds } from './audit-kinds.js';
import { AuditQueryEngine } from './audit-query.js';
import { AuditReader } from './audit-reader.js';
import { verifyStoredChain } from '../shared/audit-rows.js';
import { rowToChained, type AuditRow } from './audit-rows.js';
import { AuditSearchIndex, type SearchIndexOptions } from './audit-search.js';
import type { Database } from './database.js';
import { removeInSlices } from '../shared/slices.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

/**
 * Rows read per statement when walking the whole chain (verify, export), with a turn of the event
 * loop between two: checking a row's hash takes tens of microseconds, so a batch holds the loop for
 * a few milliseconds while the service verifies a million events in the background.
 */
const CHAIN_BATCH = 256;

/**
 * The audit log on the service's SQLite file. The chain head is the hash of the last event whose
 * insert succeeded in the current batch; a batch whose commit fails puts it back to the last
 * committed event, so an event that never reached the file is never linked to.
 */
export class SqliteAuditStore implements AuditStore {
  private head: string;
  private readonly stmt;
  private readonly kinds: AuditKinds;
  readonly search: AuditSearchIndex;
  private readonly engine: AuditQueryEngine;
  /** Queries off the event loop, on a file; an in-memory database is queried in this thread. */
  private readonly reader: AuditReader | null;
  /**
   * `verify` and `pruneBefore` take turns: each reads the chain in batches across event-loop turns,
   * and a walk must not find rows removed under it.
   */
  private turn: Promise<unknown> = Promise.resolve();
  /**
   * Events inserted in the open transaction, per hour and kind, not yet added to the counts tables:
   * a batch of events adds one row per hour and kind, not two per event.
   */
  private uncounted = new Map<string, { hour: string; kind: number; n: number }>();

  constructor(
    private readonly database: Database,
    private readonly uow: SqliteUnitOfWork,
    options: { search?: SearchIndexOptions } = {},
  ) {
    const db = database.db;
    this.stmt = {
      // Positional: binding sixteen named parameters looks each one up on an object built per
      // event, a measurable part of an insert on the webhook's hot path.
      insert: db.prepare(`
        INSERT INTO audit_events (id, timestamp, event_type, category, result, severity, actor, source,
          subsystem, action, session_id, task_id, detail, prev_hash, hash, kind)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      lastHash: db.prepare('SELECT hash FROM audit_events ORDER BY seq DESC LIMIT 1').pluck(),
      count: db.prepare('SELECT ifnull(sum(n), 0) FROM audit_counts_days').pluck(),
      // Each in its own subquery: SQLite reads one end of the index for a lone min() or max(), but
      // scans all of it for the pair.
      span: db.prepare(`SELECT (SELECT min(timestamp) FROM audit_events) AS oldest,
        (SELECT max(timestamp) FROM audit_events) AS newest`),
      lastSeq: db.prepare('SELECT ifnull(max(seq), 0) FROM audit_events').pluck(),
      chain: db.prepare('SELECT * FROM audit_events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?'),
      firstAtOrAfter: db.prepare(`SELECT seq FROM audit_events INDEXED BY audit_events_time
        WHERE timestamp >= ? ORDER BY timestamp, seq LIMIT 1`).pluck(),
      lastBefore: db.prepare(`SELECT seq FROM audit_events INDEXED BY audit_events_time
        WHERE timestamp < ? ORDER BY timestamp DESC, seq DESC LIMIT 1`).pluck(),
      oldest: db.prepare('SELECT seq, timestamp, hash FROM audit_events ORDER BY seq LIMIT ?'),
      deleteThrough: db.prepare('DELETE FROM audit_events WHERE seq <= ?'),
      countDay: db.prepare(`INSERT INTO audit_counts_days (day, kind, n) VALUES (?, ?, ?)
        ON CONFLICT (day, kind) DO UPDATE SET n = n + excluded.n`),
      countHour: db.prepare(`INSERT INTO audit_counts_hours (hour, kind, n) VALUES (?, ?, ?)
        ON CONFLICT (hour, kind) DO UPDATE SET n = n + excluded.n`),
      uncountDays: db.prepare(`UPDATE audit_counts_days AS c SET n = c.n - g.n
        FROM (SELECT substr(timestamp, 1, 10) AS day, kind, count(*) AS n FROM audit_events WHERE seq <= ? GROUP BY 1, 2) AS g
        WHERE c.day = g.day AND c.kind = g.kind`),
      uncountHours: db.prepare(`UPDATE audit_counts_hours AS c SET n = c.n - g.n
        FROM (SELECT substr(timestamp, 1, 13) AS hour, kind, count(*) AS n FROM audit_events WHERE seq <= ? GROUP BY 1, 2) AS g
        WHERE c.hour = g.hour AND c.kind = g.kind`),
      dropEmptyDays: db.prepare('DELETE FROM audit_counts_days WHERE day <= ? AND n = 0'),
      dropEmptyHours: db.prepare('DELETE FROM audit_counts_hours WHERE hour <= ? AND n = 0'),
    };
    this.kinds = new AuditKinds(db);
    this.search = new AuditSearchIndex(database, options.search);
    this.engine = new AuditQueryEngine(db, this.kinds, this.search);
    this.reader = database.path === ':memory:' ? null : new AuditReader(database.path, (query) => this.engine.run(query), options.search?.log);
    this.head = this.committedHead();
    uow.onBeforeCommit(() => this.writeCounts());
    uow.onRollback(() => this.resync());
  }

  async append(event: AuditEvent, options: AppendOptions = {}): Promise<void> {
    const insert = () => this.insert(event);
    await (options.batched === true ? this.uow.runBatched(insert) : this.uow.run(insert));
    this.search.schedule();
  }

  /**
   * Inside a write of the unit of work (another store's): links the event to the chain and stores
   * it with that write, which commits it or rolls it back (the head is put back then).
   */
  appendInWrite(event: AuditEvent): void {
    this.insert(event);
    this.search.schedule();
  }

  /** Appends many events in one transaction, outside the unit of work (bulk loads: benchmarks, tests). */
  appendMany(events: readonly AuditEvent[]): void {
    try {
      this.database.transaction(() => {
        for (const event of events) this.insert(event);
        this.writeCounts();
      });
    } catch (error) {
      this.resync();
      throw error;
    }
    this.search.schedule();
  }

  async count(): Promise<number> {
    return this.stmt.count.get() as number;
  }

  async stats(): Promise<AuditStats> {
    const span = this.stmt.span.get() as { oldest: string | null; newest: string | null };
    return { count: this.stmt.count.get() as number, ...span };
  }

  async query(query: AuditQuery): Promise<AuditPage> {
    return this.reader ? this.reader.run(query) : this.engine.run(query);
  }

  verify(): Promise<ChainVerdict> {
    return this.exclusive(() => verifyStoredChain(this.chainBatches(0, this.stmt.lastSeq.get() as number)));
  }

  async *exportChain(range: AuditTimeRange): AsyncIterable<ChainedAuditEvent> {
    const from = range.since === undefined ? 1 : (this.stmt.firstAtOrAfter.get(range.since) as number | undefined);
    const through = range.until === undefined ? (this.stmt.lastSeq.get() as number) : (this.stmt.lastBefore.get(range.until) as number | undefined);
    if (from === undefined || through === undefined) return;
    for await (const rows of this.chainBatches(from - 1, through)) yield* rows.map(rowToChained);
  }

  pruneBefore(cutoff: string, record: (range: PrunedRange) => AuditEvent, options: { signal?: AbortSignal } = {}): Promise<number> {
    // The oldest events, up to the first one that is not older than the cutoff: the chain loses a
    // prefix, which the record vouches for.
    const slice = this.database.db.transaction((limit: number) => {
      const oldest = this.stmt.oldest.all(limit) as { seq: number; timestamp: string; hash: string }[];
      const newer = oldest.findIndex((row) => row.timestamp >= cutoff);
      const rows = newer === -1 ? oldest : oldest.slice(0, newer);
      const last = rows.at(-1);
      if (!last) return 0;
      this.remove(last.seq, cutoff);
      this.insert(record({
        removed: rows.length, last_hash: last.hash, first_timestamp: rows[0]!.timestamp, last_timestamp: last.timestamp,
      }));
      this.writeCounts();
      // Stopping at a newer event returns fewer than asked, which ends the pruning.
      return rows.length;
    });
    return this.exclusive(() => removeInSlices((limit) => {
      try {
        return slice(limit);
      } catch (error) {
        this.resync();
        throw error;
      }
    }, { signal: options.signal, isOpen: () => this.database.open }));
  }

  /** Stops background indexing and the query worker (the storage is closing). */
  async close(): Promise<void> {
    this.search.close();
    await this.reader?.close();
  }

  /** Rows `after < seq <= through`, oldest first, one batch per event-loop turn. */
  private async *chainBatches(after: number, through: number): AsyncIterable<AuditRow[]> {
    for (;;) {
      const rows = this.stmt.chain.all(after, through, CHAIN_BATCH) as AuditRow[];
      if (rows.length > 0) yield rows;
      if (rows.length < CHAIN_BATCH) return;
      after = rows.at(-1)!.seq;
      await yieldToLoop();
    }
  }

  /** Inside a transaction: links the event to the head and stores it; the head moves only if the insert did. */
  private insert(event: AuditEvent): void {
    const { kind, created } = this.kinds.kindOf(event);
    const hash = eventHash(this.head, event);
    try {
      const e = event;
      this.stmt.insert.run(e.id, e.timestamp, e.event_type, e.category, e.result, e.severity, e.actor, e.source, e.subsystem, e.action,
        e.session_id, e.task_id, JSON.stringify(e.detail), this.head, hash, kind);
    } catch (error) {
      // The write's savepoint takes the new kind's row with it.
      if (created) this.kinds.forget(kind);
      throw error;
    }
    this.head = hash;
    const hour = event.timestamp.slice(0, 13);
    const key = `${hour}|${kind}`;
    const pending = this.uncounted.get(key);
    if (pending) pending.n++;
    else this.uncounted.set(key, { hour, kind, n: 1 });
  }

  /** Inside the transaction, after its inserts: adds them to the day and hour counts. */
  private writeCounts(): void {
    if (this.uncounted.size === 0) return;
    const days = new Map<string, { day: string; kind: number; n: number }>();
    for (const { hour, kind, n } of this.uncounted.values()) {
      this.stmt.countHour.run(hour, kind, n);
      const day = hour.slice(0, 10);
      const entry = days.get(`${day}|${kind}`);
      if (entry) entry.n += n;
      else days.set(`${day}|${kind}`, { day, kind, n });
    }
    for (const { day, kind, n } of days.values()) this.stmt.countDay.run(day, kind, n);
    this.uncounted.clear();
  }

  /** Inside a transaction: removes the events through `seq` (all before `cutoff`), their counts and their index rows. */
  private remove(seq: number, cutoff: string): void {
    this.stmt.uncountDays.run(seq);
    this.stmt.uncountHours.run(seq);
    this.stmt.dropEmptyDays.run(cutoff.slice(0, 10));
    this.stmt.dropEmptyHours.run(cutoff.slice(0, 13));
    this.search.removeThrough(seq);
    this.stmt.deleteThrough.run(seq);
  }

  /** After a rolled-back transaction: the head and the kinds as the file has them. */
  private resync(): void {
    this.head = this.committedHead();
    this.kinds.reload();
    this.uncounted.clear();
  }

  private committedHead(): string {
    return (this.stmt.lastHash.get() as string | undefined) ?? GENESIS_HASH;
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.turn.then(task, task);
    this.turn = run.catch(() => undefined);
    return run;
  }
}
