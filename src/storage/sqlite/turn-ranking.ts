/**
 * bm25 exactly as FTS5's `bm25()` computes it (fts5_aux.c), for the searches where FTS5's own
 * function would be too slow. FTS5 works out each phrase's document frequency by walking that
 * phrase's whole doclist on every query: for a word in most of a million turns that walk alone is
 * ~40 ms. Here the frequency comes from a bounded count (exact up to a limit, estimated beyond it),
 * and everything else is FTS5's own data: row count and token totals from the index's averages
 * record, each row's length from `%_docsize`, so with exact frequencies the scores are FTS5's.
 */
import { foldWord } from '../ports/turn-query.js';

const K1 = 1.2;
const B = 0.75;

/** FTS5's IDF, including its floor for words in more than half of all rows. */
export function idf(rows: number, docsWithWord: number): number {
  const value = Math.log((rows - docsWithWord + 0.5) / (docsWithWord + 0.5));
  return value <= 0 ? 1e-6 : value;
}

/**
 * One row's score (higher is better; FTS5's bm25() returns the negation). `frequencies[i]` is how
 * often word i occurs in the row's weighted column, `rowTokens` the row's length over all columns.
 */
export function bm25Score(idfs: readonly number[], frequencies: readonly number[], rowTokens: number, averageTokens: number): number {
  let score = 0;
  for (let i = 0; i < idfs.length; i++) {
    const f = frequencies[i]!;
    score += idfs[i]! * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * rowTokens) / averageTokens)));
  }
  return score;
}

/** SQLite-format varints (big-endian, 7 bits a byte, a ninth byte of 8), as FTS5 writes them. */
export function readVarints(blob: Uint8Array): number[] {
  const values: number[] = [];
  let i = 0;
  while (i < blob.length) {
    let value = 0;
    for (let n = 0; ; n++) {
      const byte = blob[i++]!;
      if (n === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    values.push(value);
  }
  return values;
}

const TOKEN_CHAR = '[\\p{L}\\p{N}\\p{Co}\\p{M}]';

/**
 * A counter of how often each word occurs in a text as a whole token, compared the way the index
 * compares (case and diacritics folded). Regular expressions over the folded text, rather than
 * tokenising it word by word, keep the work in native code.
 */
export function wordCounter(words: readonly string[]): (text: string) => number[] {
  const patterns = words.map((word) => new RegExp(`(?<!${TOKEN_CHAR})${escapeRegExp(foldWord(word))}(?!${TOKEN_CHAR})`, 'gu'));
  return (text) => {
    const folded = foldWord(text);
    return patterns.map((pattern) => {
      pattern.lastIndex = 0;
      let count = 0;
      while (pattern.exec(folded) !== null) count++;
      return count;
    });
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
