import type { Statement } from 'better-sqlite3';
import { AUDIT_EXACT_TOTAL } from '../ports/audit.js';
import { Newest } from './audit-newest.js';

/** A candidate as the capped read sees it: `hit` is 1 when it matches every condition (0 or NULL when not: a filter on a NULL field). */
type Candidate = [seq: number, timestamp: string, kind: number, hit: number | null];

/** The statements a capped read runs, prepared by the engine for the query's shape. */
export interface CappedStatements {
  /** Events the search index does not hold yet (`seq > @indexed`), newest first, as `Candidate`s. */
  tail: Statement;
  /** The index's candidates (`seq <= @indexed`), newest first, as `Candidate`s. */
  indexed: Statement;
  /** How many candidates each of the above has in all: `[tail, indexed]`. */
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

/**
 * The matches of a `q` query read newest first in the chain, stopping after `AUDIT_EXACT_TOTAL`
 * of them: each match is a row read (and its text checked), so a common substring cost a read of
 * every one of tens of thousands of rows for its total. Below the cap everything is exact. Past it
 * the counts are those of the newest matches, scaled by how many candidates there are in all (the
 * index counts those without reading rows), and the page still is exact: it is taken from the
 * newest matches, unless the clock stepped back so that an unread older event is newer in time;
 * then the answer is null and the caller reads everything.
 */
export function readCapped(statements: CappedStatements, params: Record<string, string | number>, offset: number, limit: number): CappedMatches | null {
  const counts = new Map<number, number>();
  const newest = new Newest(offset + limit);
  // Per source (not indexed yet, then indexed): candidates read and how many of them matched.
  const seen = [{ read: 0, hits: 0 }, { read: 0, hits: 0 }];
  let hits = 0;
  let below = 0;
  // The statements are left before the others run: the connection runs one at a time.
  reading: for (const [i, statement] of [statements.tail, statements.indexed].entries()) {
    for (const [seq, timestamp, kind, hit] of statement.raw().iterate(params) as Iterable<Candidate>) {
      seen[i]!.read++;
      below = seq;
      if (hit !== 1) continue;
      seen[i]!.hits++;
      if (++hits > AUDIT_EXACT_TOTAL) break reading;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      newest.offer({ seq, timestamp });
    }
  }
  const page = newest.take().slice(offset);
  if (hits <= AUDIT_EXACT_TOTAL) return { counts, page, estimate: null };
  const oldest = newest.oldestKept;
  if (oldest !== null && statements.overtaken.pluck().get({ timestamp: oldest.timestamp, below }) === 1) return null;
  const candidates = statements.candidates.raw().get(params) as [number, number];
  // Each source at the share of its candidates read that matched: the events not indexed yet are
  // all candidates, the index's mostly match. An index not reached is taken to match throughout.
  const estimate = Math.max(hits, Math.round(candidates.reduce((sum, n, i) => sum + n * (seen[i]!.read === 0 ? 1 : seen[i]!.hits / seen[i]!.read), 0)));
  return { counts: scaled(counts, estimate / AUDIT_EXACT_TOTAL), page, estimate };
}

/** Counts of a sample scaled to the whole; a kind seen keeps at least one. */
function scaled(counts: Map<number, number>, factor: number): Map<number, number> {
  return new Map([...counts].map(([kind, n]) => [kind, Math.max(1, Math.round(n * factor))]));
}
