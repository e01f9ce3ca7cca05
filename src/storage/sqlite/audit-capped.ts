import type { Statement } from 'better-sqlite3';
import { AUDIT_EXACT_TOTAL } from '../ports/audit.js';
import type { Ordered } from './audit-newest.js';

/**
 * The statements a capped read runs, prepared by the engine for the query's shape, each in two
 * forms: for the events the search index does not hold yet (`seq > @indexed`), then for those it
 * proposes (`seq <= @indexed`). Both read the matches newest first in the chain, `@limit` at most.
 */
export interface CappedStatements {
  /** Matches per kind: `{kind, n, low}`, `low` the oldest `seq` among them. */
  counts: [Statement, Statement];
  /** Matches as `Ordered` rows with their kind. */
  page: [Statement, Statement];
  /**
   * Candidates, matching or not, in all and from `@low` on: `[not indexed, from low, indexed, from
   * low]`. One pass over the index for both: a rowid bound does not spare FTS5 merging its
   * trigrams' lists, so counting from `@low` apart cost as much as counting them all.
   */
  candidates: Statement;
  /** Whether an event older in the chain than `@below` is newer in time than `@timestamp`. */
  overtaken: Statement;
}

export interface CappedMatches {
  counts: Map<number, number>;
  page: number[];
  /** The estimated number of matches when more than `AUDIT_EXACT_TOTAL` matched; null when `counts` are exact. */
  estimate: number | null;
}

type Params = Record<string, string | number>;
type Match = Ordered & { kind: number };

/**
 * The matches of a `q` query read newest first in the chain, stopping after `AUDIT_EXACT_TOTAL`
 * of them: each match is a row read (and its text checked), so a common substring cost a read of
 * every one of tens of thousands of rows for its total. Below the cap everything is exact. Past it
 * the counts are those of the newest matches, scaled by how many candidates there are in all (the
 * index counts those without reading rows). The counting runs inside SQLite: handing each of
 * 10,000 rows to JavaScript took 37 ms against 20 at a million events. The page is the newest
 * `offset + limit` matches, read once more, which is exact unless the clock stepped back so that
 * an unread older event is newer in time: then the answer is null and the caller reads every match.
 */
export function readCapped(statements: CappedStatements, params: Params, offset: number, limit: number): CappedMatches | null {
  const wanted = offset + limit;
  const page = newestPage(statements, params, wanted);
  if (page === null) return null;
  const counts = new Map<number, number>();
  const seqs = page.slice(offset).map((row) => row.seq);
  if (page.length < wanted) {
    // The page holds every match (a rare `q`): they are counted from it.
    for (const { kind } of page) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    return { counts, page: seqs, estimate: null };
  }
  const hits = [0, 0];
  let low = 0;
  let part = 0;
  for (let total = 0; part < 2; part++) {
    const rows = statements.counts[part]!.all({ ...params, limit: AUDIT_EXACT_TOTAL + 1 - total }) as { kind: number; n: number; low: number }[];
    for (const row of rows) {
      counts.set(row.kind, (counts.get(row.kind) ?? 0) + row.n);
      hits[part]! += row.n;
      low = low === 0 ? row.low : Math.min(low, row.low);
    }
    total += hits[part]!;
    if (total > AUDIT_EXACT_TOTAL) break;
  }
  if (part === 2) return { counts, page: seqs, estimate: null };
  // The part it stopped in at the share of its candidates read that matched (the events not
  // indexed yet are all candidates, the index's mostly match); a part read whole as it is; an index
  // not reached taken to match throughout.
  const [unindexed, unindexedRead, indexed, indexedRead] = statements.candidates.raw().get({ ...params, low }) as number[];
  const estimate = part === 0
    ? Math.round(unindexed! * (hits[0]! / unindexedRead!)) + indexed!
    : hits[0]! + Math.round(indexed! * (hits[1]! / indexedRead!));
  const matched = hits[0]! + hits[1]!;
  return { counts: scaled(counts, Math.max(estimate, matched) / matched), page: seqs, estimate: Math.max(estimate, matched) };
}

/**
 * The newest `wanted` matches in the chain, in the API's order: exact when no event older in the
 * chain than the oldest of them is newer in time than the oldest of them (null otherwise).
 */
function newestPage(statements: CappedStatements, params: Params, wanted: number): Match[] | null {
  const rows: Match[] = [];
  for (const statement of statements.page) {
    if (rows.length === wanted) break;
    rows.push(...(statement.all({ ...params, limit: wanted - rows.length }) as Match[]));
  }
  rows.sort((a, b) => (a.timestamp === b.timestamp ? b.seq - a.seq : a.timestamp < b.timestamp ? 1 : -1));
  if (rows.length === wanted) {
    const below = Math.min(...rows.map((row) => row.seq));
    if (statements.overtaken.pluck().get({ timestamp: rows.at(-1)!.timestamp, below }) === 1) return null;
  }
  return rows;
}

/** Counts of a sample scaled to the whole; a kind seen keeps at least one. */
function scaled(counts: Map<number, number>, factor: number): Map<number, number> {
  return new Map([...counts].map(([kind, n]) => [kind, Math.max(1, Math.round(n * factor))]));
}
