import type BetterSqlite3 from 'better-sqlite3';
import { excerpt } from '../ports/turn-preview.js';
import { ftsString, matchExpression, MAX_QUERY_WORDS, queryWords } from '../ports/turn-query.js';
import type { SearchOptions, SearchResult, Turn } from '../ports/turns.js';
import { bm25Score, idf, readVarints, wordCounter } from './turn-ranking.js';

/** Knobs of the search; the defaults are what bench/memory.ts measured on a million turns. */
export interface SearchTuning {
  /**
   * Ranking looks at the newest matches only, at most this many: scoring every match of a word
   * found in most turns is what makes a search slow. Rarer words are ranked over all their matches.
   */
  candidates: number;
  /**
   * When every word (and the session, when scoped) occurs in at most this many turns, FTS5's own
   * bm25() ranks; above it, bm25 is computed here with a bounded frequency count (see ranking.ts).
   */
  ftsRankMaxDocs: number;
  /**
   * To estimate how many turns contain a word above `ftsRankMaxDocs`: how many of its newest
   * matches to look at (their share of the rows they span, scaled to all rows).
   */
  frequencySampleHits: number;
  /** Characters of each candidate's text counted for word frequencies on the second path. */
  countedChars: number;
}

export const DEFAULT_SEARCH_TUNING: SearchTuning = {
  candidates: 1_000,
  ftsRankMaxDocs: 20_000,
  frequencySampleHits: 1_000,
  countedChars: 20_000,
};


/** A row of `turns`: the Turn with its rowid and SQLite's integer boolean. */
export type TurnRow = Omit<Turn, 'pinned'> & { seq: number; pinned: number };

export const TURN_COLUMNS = 't.seq, t.id, t.session_id, t.role, t.content, t.provider, t.timestamp, t.pinned';

/**
 * The first path: FTS5 ranks. The newest `candidates` matches are scored with -bm25 (the scope
 * column has weight 0, so scoping never changes a score) and the best `limit` are joined to their
 * turns. Exported so the benchmark can run exactly this SQL directly.
 */
export const FTS_RANK_SQL = `
  WITH candidates AS (
    SELECT rowid AS seq, -bm25(turns_fts, 1.0, 0.0) AS score
    FROM turns_fts WHERE turns_fts MATCH @match
    ORDER BY rowid DESC LIMIT @candidates
  ), best AS (
    SELECT seq, score FROM candidates ORDER BY score DESC, seq DESC LIMIT @limit
  )
  SELECT ${TURN_COLUMNS}, best.score AS score
  FROM best JOIN turns t ON t.seq = best.seq
  WHERE @session_id IS NULL OR t.session_id = @session_id
  ORDER BY best.score DESC, best.seq DESC`;

/** The second path's candidates: newest matches with their lengths and (the start of) their text. */
const OWN_CANDIDATES_SQL = `
  SELECT c.seq AS seq, d.sz AS sz, substr(t.content, 1, @chars) AS text
  FROM (SELECT rowid AS seq FROM turns_fts WHERE turns_fts MATCH @match ORDER BY rowid DESC LIMIT @candidates) c
  JOIN turns t ON t.seq = c.seq
  JOIN turns_fts_docsize d ON d.id = c.seq
  WHERE @session_id IS NULL OR t.session_id = @session_id`;

type Statement = BetterSqlite3.Statement;

/** Full-text search over `turns_fts`: all words required, any order, best bm25 first. */
export class TurnSearch {
  private readonly stmt: Record<string, Statement>;

  constructor(db: BetterSqlite3.Database, private readonly tuning: SearchTuning = DEFAULT_SEARCH_TUNING) {
    this.stmt = {
      ftsRank: db.prepare(FTS_RANK_SQL),
      ownCandidates: db.prepare(OWN_CANDIDATES_SQL),
      bySeq: db.prepare(`SELECT ${TURN_COLUMNS} FROM turns t WHERE t.seq = ?`),
      countMatches: db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM turns_fts WHERE turns_fts MATCH ? LIMIT ?)'),
      countSession: db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM turns WHERE session_id = ? LIMIT ?)'),
      // Newest first is the order FTS5 reads fastest; a `rowid >` range is not, it walks the doclist.
      oldestOfNewest: db.prepare(`SELECT min(seq) AS n FROM (
          SELECT rowid AS seq FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rowid DESC LIMIT ?)`),
      // Two statements: SQLite answers a lone min() or max() from the b-tree's edge, both at once by a scan.
      lowestSeq: db.prepare('SELECT min(seq) AS n FROM turns'),
      highestSeq: db.prepare('SELECT max(seq) AS n FROM turns'),
      averages: db.prepare('SELECT block FROM turns_fts_data WHERE id = 1'),
    };
  }

  search(query: string, options: SearchOptions): SearchResult[] {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be a positive integer');
    const words = queryWords(query);
    if (words.length > MAX_QUERY_WORDS) throw new RangeError(`query has more than ${MAX_QUERY_WORDS} distinct words`);
    const match = matchExpression(words, options.sessionId);
    if (match === null) return [];
    const bound = this.tuning.ftsRankMaxDocs + 1;
    const docs = words.map((word) => this.count('countMatches', `body : ${ftsString(word)}`, bound));
    if (docs.includes(0)) return [];
    const sessionRows = options.sessionId === undefined ? 0 : this.count('countSession', options.sessionId, bound);
    if (options.sessionId !== undefined && sessionRows === 0) return [];
    const params = {
      match,
      candidates: Math.max(this.tuning.candidates, options.limit),
      limit: options.limit,
      session_id: options.sessionId ?? null,
    };
    const cheap = docs.every((n) => n < bound) && sessionRows < bound;
    const rows = cheap ? (this.stmt.ftsRank!.all(params) as (TurnRow & { score: number })[]) : this.rankHere(words, docs, params);
    return rows.map((row) => ({
      id: row.id,
      session_id: row.session_id,
      role: row.role,
      provider: row.provider,
      timestamp: row.timestamp,
      pinned: row.pinned === 1,
      content: row.content,
      preview: excerpt(row.content, words),
      score: row.score,
    }));
  }

  /** The second path: bm25 over the newest candidates with bounded frequency counts. */
  private rankHere(
    words: string[],
    docs: number[],
    params: { match: string; candidates: number; limit: number; session_id: string | null },
  ): (TurnRow & { score: number })[] {
    const averages = this.stmt.averages!.get() as { block: Buffer } | undefined;
    if (!averages) return [];
    const [rows = 0, ...columnTokens] = readVarints(averages.block);
    if (rows === 0) return [];
    const averageTokens = columnTokens.reduce((a, b) => a + b, 0) / rows;
    const idfs = words.map((word, i) =>
      idf(rows, docs[i]! <= this.tuning.ftsRankMaxDocs ? docs[i]! : this.estimateDocs(`body : ${ftsString(word)}`, rows)));
    const count = wordCounter(words);
    const candidates = this.stmt.ownCandidates!.all({ ...params, chars: this.tuning.countedChars }) as { seq: number; sz: Buffer; text: string }[];
    const scored = candidates.map((c) => {
      const rowTokens = readVarints(c.sz).reduce((a, b) => a + b, 0);
      return { seq: c.seq, score: bm25Score(idfs, count(c.text), rowTokens, averageTokens) };
    });
    scored.sort((a, b) => b.score - a.score || b.seq - a.seq);
    return scored.slice(0, params.limit).flatMap(({ seq, score }) => {
      const row = this.stmt.bySeq!.get(seq) as TurnRow | undefined;
      return row ? [{ ...row, score }] : [];
    });
  }

  /**
   * How many turns contain a phrase known to be in more than `ftsRankMaxDocs` of them: the share
   * its newest `frequencySampleHits` matches have of the rows they span, scaled to all rows. The
   * span is taken from rowids (counting the rows would read them all), corrected for rowids freed
   * by deletes as if those were spread evenly. Such a word's IDF is small and changes slowly with
   * its frequency, so the estimate ranks like the exact count would.
   */
  private estimateDocs(phrase: string, rows: number): number {
    const oldest = (this.stmt.oldestOfNewest!.get(phrase, this.tuning.frequencySampleHits) as { n: number | null }).n;
    const low = (this.stmt.lowestSeq!.get() as { n: number | null }).n;
    const high = (this.stmt.highestSeq!.get() as { n: number | null }).n;
    if (oldest === null || low === null || high === null) return rows;
    const liveShare = rows / (high - low + 1);
    const spanned = Math.max(1, (high - oldest + 1) * liveShare);
    const hits = Math.min(this.tuning.frequencySampleHits, spanned);
    const estimate = Math.round((hits / spanned) * rows);
    return Math.min(rows, Math.max(this.tuning.ftsRankMaxDocs + 1, estimate));
  }

  private count(statement: string, ...args: unknown[]): number {
    return (this.stmt[statement]!.get(...args) as { n: number }).n;
  }
}
