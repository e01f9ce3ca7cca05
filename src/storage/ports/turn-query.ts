/**
 * Turning a user's search text into an FTS5 query without ever exposing FTS5 syntax.
 *
 * The words are cut out with the same character classes as FTS5's `unicode61` tokenizer (letters,
 * numbers, private-use characters; combining marks stay inside a word and are folded away), then
 * each word is written as an FTS5 string. Inside a string FTS5 sees no operators: `NEAR`, `AND`,
 * `*`, `-`, `:` and quotes are plain text, and what is left of them after tokenising is a word.
 */

const WORD = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;

/** How the index compares words: case-insensitive, diacritics removed (`remove_diacritics 2`). */
export function foldWord(word: string): string {
  return word.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
}

/**
 * Each word costs a bounded frequency count (up to ~2 ms for a word in most turns), so the number
 * of words is bounded too; all words are required, so dropping some would silently widen a search.
 */
export const MAX_QUERY_WORDS = 32;

/**
 * The distinct words of a query in first-seen order (duplicates by folded form dropped; the text
 * is kept as typed so FTS5 folds it itself). Punctuation alone gives none.
 */
export function queryWords(query: string): string[] {
  const words = new Map<string, string>();
  for (const match of query.matchAll(WORD)) {
    const folded = foldWord(match[0]);
    if (folded !== '' && !words.has(folded)) words.set(folded, match[0]);
  }
  return [...words.values()];
}

/** An FTS5 string literal: double quotes around, inner quotes doubled. */
export function ftsString(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** `'s' || hex(session_id)` as the triggers write it: one token naming the session. */
export function scopeToken(sessionId: string): string {
  return `s${Buffer.from(sessionId, 'utf8').toString('hex').toUpperCase()}`;
}

/**
 * The MATCH expression: every word required in the `body` column (any order, implicit AND), and
 * optionally the session's scope token. `null` when the query has no words.
 */
export function matchExpression(words: readonly string[], sessionId?: string): string | null {
  if (words.length === 0) return null;
  const terms = words.map((word) => `body : ${ftsString(word)}`);
  if (sessionId !== undefined) terms.unshift(`scope : ${ftsString(scopeToken(sessionId))}`);
  return terms.join(' AND ');
}

/** Word spans of `text` (start/end offsets in UTF-16 units), as the tokenizer would cut them. */
export function* wordSpans(text: string): Generator<{ start: number; end: number; word: string }> {
  for (const match of text.matchAll(WORD)) {
    yield { start: match.index, end: match.index + match[0].length, word: match[0] };
  }
}

/**
 * The words of `text` cut as above and folded as the index compares them, one space apart: what a
 * backend whose own tokenizer differs (PostgreSQL) indexes and searches, so both sides of a match
 * are cut and folded by this one module.
 */
export function foldedWords(text: string): string {
  const words: string[] = [];
  for (const { word } of wordSpans(text)) {
    const folded = foldWord(word);
    if (folded !== '') words.push(folded);
  }
  return words.join(' ');
}
