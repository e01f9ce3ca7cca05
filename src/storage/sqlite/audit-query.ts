import type { Statement } from 'better-sqlite3';
import { auditText, matchesQuery } from '../ports/audit-query.js';
import type { AuditPage, AuditQuery } from '../ports/audit.js';
import { countingPlan, keySpan, locate, type Bucket, type Span } from './audit-buckets.js';
import { readCapped, type CappedStatements } from './audit-capped.js';
import type { AuditKinds } from './audit-kinds.js';
import { Newest, type Ordered } from './audit-newest.js';
import type { AuditSearchIndex } from './audit-search.js';
import { rowToChained, type AuditRow } from './audit-rows.js';
import type { SqliteDatabase } from './database.js';

/**
 * Filters that are not kind fields, checked on each event. The first four have a partial index
 * each, in the order one is picked to drive a query (ids narrow most); `action` has none.
 */
const EVENT_FILTERS = ['task_id', 'session_id', 'actor', 'source', 'action'] as const;
const FILTER_INDEXES: Partial<Record<(typeof EVENT_FILTERS)[number], string>> = {
  task_id: 'audit_events_task',
  session_id: 'audit_events_session',
  actor: 'audit_events_actor',
  source: 'audit_events_source',
};

/** Newest first; the tie-break is chain order. Every index of migration 010 ends in these two. */
const NEWEST_FIRST = 'ORDER BY timestamp DESC, seq DESC';

/**
 * Matches of one query: how many of each kind, and the `seq`s of the requested page, in order;
 * `estimate` when the counts are scaled from the newest matches (see `readCapped`).
 */
interface Matches {
  counts: Map<number, number>;
  page: number[];
  estimate?: number | null;
}

type Params = Record<string, string | number>;

/**
 * The check of a candidate's stored text against `@needle` (already `auditText`). Most candidates
 * of a common `q` hold it as it is, which SQLite's `instr` finds on the stored bytes: handing each
 * one's detail to JavaScript to lower-case cost a fifth of a capped query. That shortcut only says
 * yes when the full check would: the needle is lower case, and lower-casing leaves every character
 * of a lower-cased text as it is, wherever it stands, so lower-casing the detail keeps the needle
 * in it. A needle with a lone surrogate is left to the full check: it has no UTF-8 form, so the
 * bytes SQLite would compare are not the characters JavaScript compares.
 */
function textCheck(needle: string): string {
  const full = 'audit_matches(event_type, detail, @needle)';
  return /\p{Cs}/u.test(needle) ? full : `(instr(detail, @needle) > 0 OR ${full})`;
}

/** Most rows a query keeps in memory to pick its page from; deeper pages are sorted by SQLite. */
const MAX_KEPT = 10_000;

/** A bucket with its matching events per kind (facets). */
interface CountedBucket extends Bucket {
  kinds: Map<number, number>;
}

function tally(bucket: CountedBucket, kind: number, n: number, wanted: ReadonlySet<number> | null): void {
  bucket.rows += n;
  if (wanted !== null && !wanted.has(kind)) return;
  bucket.matched += n;
  bucket.kinds.set(kind, (bucket.kinds.get(kind) ?? 0) + n);
}

const newestFirst = (a: Bucket, b: Bucket) => (a.from < b.from ? 1 : a.from > b.from ? -1 : 0);

/**
 * Runs an audit query on SQLite (migration 010 describes the tables). A query on the five kind
 * fields and a time range is answered from the counts tables and one index walk; a query with a
 * selective filter or `q` reads its matches through that filter's index or the trigram index.
 * Everything runs synchronously in one call, so the total, the facets and the page come from the
 * same state of the file.
 */
export class AuditQueryEngine {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly kinds: AuditKinds,
    private readonly search: AuditSearchIndex,
  ) {
    db.function('audit_matches', { deterministic: true }, (eventType, detail, needle) =>
      matchesQuery(String(eventType), String(detail), String(needle)) ? 1 : 0);
  }

  run(query: AuditQuery): AuditPage {
    const kinds = this.kinds.matching(query);
    const selective = query.q !== undefined || EVENT_FILTERS.some((field) => query[field] !== undefined);
    const matches: Matches = kinds !== null && kinds.length === 0
      ? { counts: new Map(), page: [] }
      : selective ? this.readMatches(query, kinds) : this.countMatches(query, kinds);
    let total = matches.estimate ?? 0;
    if (matches.estimate == null) for (const n of matches.counts.values()) total += n;
    return {
      events: this.load(matches.page),
      total,
      total_is_estimate: matches.estimate != null,
      has_more: query.offset + matches.page.length < total,
      facets: this.kinds.facets(matches.counts),
    };
  }

  /** Filters on the kind fields and time only: counts from the counts tables, the page from one index walk. */
  private countMatches(query: AuditQuery, kinds: number[] | null): Matches {
    const wanted = kinds === null ? null : new Set(kinds);
    const plan = countingPlan(query.since, query.until);
    const buckets = [
      ...plan.raw.map((span) => this.rawBucket(span, wanted)),
      ...plan.hours.flatMap((span) => this.keyBuckets('hours', span, wanted)),
      ...(plan.days ? this.keyBuckets('days', plan.days, wanted) : []),
    ].sort(newestFirst);
    const counts = new Map<number, number>();
    for (const bucket of buckets) {
      for (const [kind, n] of bucket.kinds) counts.set(kind, (counts.get(kind) ?? 0) + n);
    }
    return { counts, page: this.walk(buckets, query, kinds, wanted) };
  }

  /** Minutes at the ends of the range, counted from the time index (it holds each event's kind). */
  private rawBucket(span: { from: string; to: string }, wanted: ReadonlySet<number> | null): CountedBucket {
    const rows = this.prepare(`SELECT kind, count(*) AS n FROM audit_events INDEXED BY audit_events_time
      WHERE timestamp >= @from AND timestamp < @to GROUP BY kind`).all({ from: span.from, to: span.to }) as { kind: number; n: number }[];
    const bucket: CountedBucket = { from: span.from, to: span.to, matched: 0, rows: 0, kinds: new Map() };
    for (const row of rows) tally(bucket, row.kind, row.n, wanted);
    return bucket;
  }

  /** One bucket per day or hour of `span` that has events. */
  private keyBuckets(table: 'days' | 'hours', span: Span, wanted: ReadonlySet<number> | null): CountedBucket[] {
    const key = table === 'days' ? 'day' : 'hour';
    // Keys are digits, '-' and 'T': '' sorts before and 'z' after every one of them.
    const rows = this.prepare(`SELECT ${key} AS key, kind, n FROM audit_counts_${table}
      WHERE ${key} >= @from AND ${key} < @to`).all({ from: span.from ?? '', to: span.to ?? 'z' }) as { key: string; kind: number; n: number }[];
    const byKey = new Map<string, CountedBucket>();
    for (const row of rows) {
      let bucket = byKey.get(row.key);
      if (!bucket) {
        const { from, to } = keySpan(row.key);
        bucket = { from: from!, to: to!, matched: 0, rows: 0, kinds: new Map(), ...(table === 'days' ? { day: row.key } : {}) };
        byKey.set(row.key, bucket);
      }
      tally(bucket, row.kind, row.n, wanted);
    }
    return [...byKey.values()];
  }

  /**
   * The page's `seq`s: the counts say which buckets hold it (a day is split into its hours first),
   * so only those are read, through the time index when matches are dense there and through the
   * kind index when they are sparse.
   */
  private walk(buckets: Bucket[], query: AuditQuery, kinds: number[] | null, wanted: ReadonlySet<number> | null): number[] {
    let at = locate(buckets, query.offset, query.limit);
    if (!at) return [];
    const day = buckets[at.first]!.day;
    if (day !== undefined) {
      buckets.splice(at.first, 1, ...this.keyBuckets('hours', keySpan(day), wanted).sort(newestFirst));
      at = locate(buckets, query.offset, query.limit)!;
    }
    const window = buckets.slice(at.first, at.last + 1);
    const matched = window.reduce((sum, bucket) => sum + bucket.matched, 0);
    const rows = window.reduce((sum, bucket) => sum + bucket.rows, 0);
    const params: Params = { from: buckets[at.last]!.from, to: buckets[at.first]!.to, limit: query.limit, offset: at.within };
    if (kinds === null) {
      return this.prepare(`SELECT seq FROM audit_events INDEXED BY audit_events_time
        WHERE timestamp >= @from AND timestamp < @to ${NEWEST_FIRST} LIMIT @limit OFFSET @offset`).pluck().all(params) as number[];
    }
    params.kinds = JSON.stringify(kinds);
    // Index entries read: walking the time index passes the other kinds' events between matches;
    // the kind index reads every match in the window, then sorts them.
    const index = (at.within + query.limit) * (rows / matched) <= 2 * matched ? 'audit_events_time' : 'audit_events_kind';
    return this.prepare(`SELECT seq FROM audit_events INDEXED BY ${index}
      WHERE kind IN (SELECT value FROM json_each(@kinds)) AND timestamp >= @from AND timestamp < @to
      ${NEWEST_FIRST} LIMIT @limit OFFSET @offset`).pluck().all(params) as number[];
  }

  /**
   * A query with `q` or a filter checked on each event: its matches are read through the index of
   * the most selective filter it has, else the trigram index, else the kind or time index; then
   * counted per kind, and the page taken from them newest first.
   */
  private readMatches(query: AuditQuery, kinds: number[] | null): Matches {
    const where: string[] = [];
    const params: Params = {};
    for (const field of EVENT_FILTERS) {
      const value = query[field];
      if (value === undefined) continue;
      where.push(`${field} = @${field}`);
      params[field] = value;
    }
    if (query.since !== undefined) {
      where.push('timestamp >= @since');
      params.since = query.since;
    }
    if (query.until !== undefined) {
      where.push('timestamp < @until');
      params.until = query.until;
    }
    if (kinds !== null) {
      where.push('kind IN (SELECT value FROM json_each(@kinds))');
      params.kinds = JSON.stringify(kinds);
    }
    const driver = this.driver(query, kinds);
    const wanted = query.offset + query.limit;
    if (query.q !== undefined) {
      // Candidates: what the trigram index proposes, and every event it has not indexed yet; each
      // is then checked against its stored text.
      const needle = auditText(query.q);
      const match = this.search.matchFor(needle);
      where.push(textCheck(needle));
      params.needle = needle;
      if (match !== null) {
        Object.assign(params, { match, indexed: this.search.indexedThrough });
        if (driver === 'NOT INDEXED' && wanted <= MAX_KEPT) {
          const capped = readCapped(this.cappedStatements(where.join(' AND ')), params, query.offset, query.limit);
          if (capped !== null) return capped;
        }
        where.push(`seq IN (SELECT rowid FROM audit_search WHERE audit_search MATCH @match
          UNION ALL SELECT seq FROM audit_events WHERE seq > @indexed)`);
      }
    }
    const source = `audit_events ${driver}`;
    const condition = where.join(' AND ');
    if (driver === 'NOT INDEXED' && wanted <= MAX_KEPT) {
      // The candidates come in no useful order and checking each is the cost: one pass counts
      // them and keeps the newest `wanted`.
      const counts = new Map<number, number>();
      const newest = new Newest(wanted);
      for (const row of this.prepare(`SELECT seq, timestamp, kind FROM ${source} WHERE ${condition}`).iterate(params) as Iterable<Ordered & { kind: number }>) {
        counts.set(row.kind, (counts.get(row.kind) ?? 0) + 1);
        newest.offer(row);
      }
      return { counts, page: newest.take().slice(query.offset) };
    }
    const counted = this.prepare(`SELECT kind, count(*) AS n FROM ${source} WHERE ${condition} GROUP BY kind`)
      .all(params) as { kind: number; n: number }[];
    const counts = new Map(counted.map((row) => [row.kind, row.n]));
    let total = 0;
    for (const n of counts.values()) total += n;
    const page = query.offset >= total
      ? []
      : this.prepare(`SELECT seq FROM ${source} WHERE ${condition} ${NEWEST_FIRST} LIMIT @limit OFFSET @offset`).pluck()
        .all({ ...params, limit: query.limit, offset: query.offset }) as number[];
    return { counts, page };
  }

  /**
   * The access path, named rather than left to the planner (which has no statistics): an indexed
   * filter's index; for `q` the candidates' rowids (no index may take over just to save the sort:
   * it would walk every event to check each against them); else the kind or the time index.
   */
  private driver(query: AuditQuery, kinds: number[] | null): string {
    const indexed = EVENT_FILTERS.find((field) => query[field] !== undefined && FILTER_INDEXES[field] !== undefined);
    if (indexed) return `INDEXED BY ${FILTER_INDEXES[indexed]}`;
    if (query.q !== undefined) return 'NOT INDEXED';
    return kinds === null ? 'INDEXED BY audit_events_time' : 'INDEXED BY audit_events_kind';
  }

  /** A `q` query's matches newest first in the chain, counted and listed (see `readCapped`). */
  private cappedStatements(condition: string): CappedStatements {
    const sources = [
      `audit_events WHERE seq > @indexed AND ${condition} ORDER BY seq DESC LIMIT @limit`,
      // The index hands its rowids out newest first; each event is then read by its seq.
      `(SELECT rowid AS candidate FROM audit_search WHERE audit_search MATCH @match AND rowid <= @indexed)
        JOIN audit_events NOT INDEXED ON seq = candidate WHERE ${condition} ORDER BY candidate DESC LIMIT @limit`,
    ] as const;
    const each = (sql: (source: string) => string) => sources.map((source) => this.prepare(sql(source))) as [Statement, Statement];
    return {
      counts: each((source) => `SELECT kind, count(*) AS n, min(seq) AS low FROM (SELECT seq, kind FROM ${source}) GROUP BY kind`),
      page: each((source) => `SELECT seq, timestamp, kind FROM ${source}`),
      candidates: this.prepare(`SELECT * FROM
        (SELECT count(*), count(*) FILTER (WHERE seq >= @low) FROM audit_events WHERE seq > @indexed),
        (SELECT count(*), count(*) FILTER (WHERE rowid >= @low) FROM audit_search WHERE audit_search MATCH @match AND rowid <= @indexed)`),
      overtaken: this.prepare(`SELECT EXISTS (SELECT 1 FROM audit_events INDEXED BY audit_events_time
        WHERE timestamp > @timestamp AND seq < @below)`),
    };
  }

  /** The page's events, in the order of `seqs`. */
  private load(seqs: number[]) {
    if (seqs.length === 0) return [];
    const rows = this.prepare('SELECT * FROM audit_events WHERE seq IN (SELECT value FROM json_each(?))').all(JSON.stringify(seqs)) as AuditRow[];
    const bySeq = new Map(rows.map((row) => [row.seq, row]));
    return seqs.map((seq) => rowToChained(bySeq.get(seq)!));
  }

  /** Statements by their text: the shapes are few (which filters are present), the values are parameters. */
  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
