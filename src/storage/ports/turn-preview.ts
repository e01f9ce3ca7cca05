import { foldWord, wordSpans } from './turn-query.js';

/** The bound on a search result's excerpt (docs/resources.md#turns-and-memory). */
export const PREVIEW_MAX_CHARS = 200;

/** Context kept before the first match, so the excerpt reads as a sentence rather than starting on it. */
const LEAD_CHARS = 60;
const ELLIPSIS = '…';

/**
 * An excerpt of `content` around the first word that matches one of `words`, at most `max`
 * characters (UTF-16 units, so also at most `max` code points), whitespace collapsed, cut at word
 * boundaries where possible and marked with an ellipsis where text was left out. Computed here
 * rather than with FTS5's snippet(), whose size is in tokens and whose fragment is the densest one
 * rather than the first match.
 */
export function excerpt(content: string, words: readonly string[], max = PREVIEW_MAX_CHARS): string {
  const text = content.replace(/\s+/g, ' ').trim();
  if (text.length <= max) return text;
  const wanted = new Set(words.map(foldWord));
  let first: { start: number; end: number } | undefined;
  for (const span of wordSpans(text)) {
    if (wanted.has(foldWord(span.word))) {
      first = span;
      break;
    }
  }
  // Both ends may be cut; reserving room for two ellipses keeps the arithmetic simple.
  const budget = max - 2 * ELLIPSIS.length;
  let start: number;
  let end: number;
  if (first === undefined) {
    start = 0;
    end = budget;
  } else if (first.end - first.start >= budget) {
    start = first.start;
    end = first.start + budget;
  } else {
    start = Math.max(0, Math.min(first.start - LEAD_CHARS, text.length - budget));
    end = Math.min(text.length, start + budget);
    start = snapForward(text, start, first.start);
    end = snapBack(text, end, first.end);
  }
  start = avoidSplitPair(text, start, 'forward');
  end = avoidSplitPair(text, end, 'back');
  const head = start > 0 ? ELLIPSIS : '';
  const tail = end < text.length ? ELLIPSIS : '';
  return `${head}${text.slice(start, end).trim()}${tail}`;
}

/** Move a cut that falls inside a word to the next space, unless that would pass `limit`. */
function snapForward(text: string, at: number, limit: number): number {
  if (at === 0 || text[at - 1] === ' ') return at;
  const space = text.indexOf(' ', at);
  return space !== -1 && space < limit ? space + 1 : at;
}

/** Move a cut that falls inside a word back to the previous space, unless that would pass `limit`. */
function snapBack(text: string, at: number, limit: number): number {
  if (at >= text.length || text[at] === ' ') return at;
  const space = text.lastIndexOf(' ', at);
  return space > limit ? space : at;
}

/** Never cut between the two halves of a surrogate pair. */
function avoidSplitPair(text: string, at: number, direction: 'forward' | 'back'): number {
  if (at <= 0 || at >= text.length) return at;
  const code = text.charCodeAt(at);
  const isLowSurrogate = code >= 0xdc00 && code <= 0xdfff;
  if (!isLowSurrogate) return at;
  return direction === 'forward' ? at + 1 : at - 1;
}
