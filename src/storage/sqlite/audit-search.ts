import { performance } from 'node:perf_hooks';
import { auditText } from '../ports/audit-query.js';
import type { Logger } from '../../log.js';
import type { Database } from './database.js';

/**
 * A trigram in fewer events than this is rare: the index reads its few rows at once. Checking
 * costs at most this many rows per trigram.
 */
const RARE = 2_000;
/** Trigrams handed to FTS5 per query: enough to narrow to the matches, few enough to stay cheap. */
const MAX_TRIGRAMS = 8;
const FIRST_BATCH = 256;
const MAX_BATCH = 20_000;

export interface SearchIndexOptions {
  /** Index new events on a timer; without it only `indexBatch` and `catchUp` index. */
  background?: boolean;
  /** Wait after new events before indexing them, so they are indexed in batches (default 250 ms). */
  delayMs?: number;
  /** Time one indexing transaction aims at (default 5 ms). */
  sliceMs?: number;
  log?: Logger;
}

/**
 * The trigram index behind `q` (migration 010): it proposes candidates, which the query checks
 * against the stored text. Events are indexed after they commit, in the background: one
 * transaction of a few milliseconds at a time, then a pause three times as long, so indexing takes
 * at most a quarter of the event loop however fast events arrive. Events after `indexedThrough`
 * are not in the index yet; the query reads those directly.
 */
export class AuditSearchIndex {
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private batch = FIRST_BATCH;
  private readonly stmt;
  private readonly index: (limit: number) => number;

  constructor(
    private readonly database: Database,
    private readonly options: SearchIndexOptions = {},
  ) {
    const db = database.db;
    this.stmt = {
      state: db.prepare('SELECT indexed_through FROM audit_search_state WHERE id = 1').pluck(),
      pending: db.prepare('SELECT seq, event_type, detail FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?'),
      insert: db.prepare('INSERT INTO audit_search (rowid, event_type, detail) VALUES (?, ?, ?)'),
      advance: db.prepare('UPDATE audit_search_state SET indexed_through = ? WHERE id = 1'),
      removeThrough: db.prepare('DELETE FROM audit_search WHERE rowid <= ?'),
      upTo: db.prepare(`SELECT count(*) FROM (SELECT rowid FROM audit_search WHERE audit_search MATCH ? LIMIT ${RARE})`).pluck(),
    };
    // Only index rows in this transaction: a statement with a trigger (every audit insert) would
    // make FTS5 flush its pending rows, one tiny segment per event.
    this.index = db.transaction((limit: number) => {
      const rows = this.stmt.pending.all(this.indexedThrough, limit) as { seq: number; event_type: string; detail: string }[];
      for (const row of rows) this.stmt.insert.run(row.seq, auditText(row.event_type), auditText(row.detail));
      const last = rows.at(-1);
      if (last) this.stmt.advance.run(last.seq);
      return rows.length;
    });
    this.schedule();
  }

  /** Every event with a `seq` up to this one is in the index. */
  get indexedThrough(): number {
    return this.stmt.state.get() as number;
  }

  /** Indexes up to `limit` events in one transaction; how many it indexed. */
  indexBatch(limit: number): number {
    return this.index(limit);
  }

  /** Indexes everything pending now, in large transactions (after a bulk load; tests). */
  catchUp(): number {
    let total = 0;
    for (let n = this.indexBatch(MAX_BATCH); n > 0; n = this.indexBatch(MAX_BATCH)) total += n;
    return total;
  }

  /** New events committed: index them soon. */
  schedule(delayMs = this.options.delayMs ?? 250): void {
    if (this.timer || this.closed || !this.options.background) return;
    this.timer = setTimeout(() => this.slice(), delayMs);
    this.timer.unref();
  }

  /**
   * The FTS5 query that proposes the events whose text may contain `needle` (already `auditText`,
   * at least three characters). Any set of its trigrams finds every match; the query checks each
   * candidate. Common trigrams (`/v1`, `com`) are in most events and only slow the index down, so
   * the rarest are used: each trigram's events are counted up to `RARE`.
   */
  matchFor(needle: string): string | null {
    const chars = [...needle];
    // FTS5 cannot read a NUL in a query; stored text has none (JSON escapes it), so such a
    // trigram would match nothing anyway. Without any trigram, null: every event is a candidate.
    const grams = [...new Set(chars.slice(0, -2).map((_, i) => chars.slice(i, i + 3).join('')))].filter((gram) => !gram.includes('\0'));
    if (grams.length === 0) return null;
    const counted = grams.map((gram) => ({ gram, n: this.stmt.upTo.get(quoted(gram)) as number })).sort((a, b) => a.n - b.n);
    const rare = counted.filter(({ n }) => n < RARE);
    return (rare.length > 0 ? rare : counted).slice(0, MAX_TRIGRAMS).map(({ gram }) => quoted(gram)).join(' AND ');
  }

  /** Inside a retention transaction: the index rows of the events removed through `seq` go too. */
  removeThrough(seq: number): void {
    this.stmt.removeThrough.run(seq);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private slice(): void {
    this.timer = null;
    if (this.closed || !this.database.open) return;
    const sliceMs = this.options.sliceMs ?? 5;
    const started = performance.now();
    let indexed: number;
    try {
      indexed = this.indexBatch(this.batch);
    } catch (error) {
      // Queries stay exact without the index (they read what it lacks); try again later.
      this.options.log?.warn(`audit search indexing failed: ${(error as Error).message}`);
      this.schedule(5_000);
      return;
    }
    const elapsed = performance.now() - started;
    if (indexed < this.batch) return;
    this.batch = Math.max(16, Math.min(MAX_BATCH, Math.floor(this.batch * (sliceMs / Math.max(elapsed, 0.1))), this.batch * 2));
    this.schedule(Math.max(1, Math.round(elapsed * 3)));
  }
}

/** A trigram quoted for FTS5: nothing in it is query syntax. */
const quoted = (gram: string) => `"${gram.replaceAll('"', '""')}"`;
