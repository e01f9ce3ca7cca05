/**
 * Glob patterns with Python `fnmatch.fnmatchcase` semantics, as docs/gateway.md#rest-rules has for REST rule
 * paths: `*` matches any run of characters *including* `/` (so `/repos/*` also matches
 * `/repos/a/b`), `?` one character, `[...]` a set, `[!...]` its complement; the whole string must
 * match; case-sensitive. Everything else is literal: it is escaped before it reaches the RegExp, so
 * a pattern can never smuggle regular-expression syntax in.
 */

function escapeChar(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** Escape a character for use inside a RegExp class; `\u{...}` sidesteps every special case. */
function classChar(c: string): string {
  return `\\u{${c.codePointAt(0)!.toString(16)}}`;
}

/**
 * Translate the body of a set (between `[` and `]`, `!` already removed). As in Python, the first
 * character is always literal (so `[]]` and `[-a]` work), `a-z` is a range, a trailing `-` is
 * literal, and a reversed range (`z-a`) matches nothing.
 */
function translateSet(body: string[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < body.length) {
    const start = body[i]!;
    if (i + 2 < body.length && body[i + 1] === '-') {
      const end = body[i + 2]!;
      if (start.codePointAt(0)! <= end.codePointAt(0)!) parts.push(`${classChar(start)}-${classChar(end)}`);
      i += 3;
    } else {
      parts.push(classChar(start));
      i += 1;
    }
  }
  return parts.join('');
}

/** Compile an fnmatch pattern to an anchored RegExp (`s` flag: `*` and `?` also match newlines). */
export function fnmatchToRegExp(pattern: string): RegExp {
  const chars = Array.from(pattern);
  let out = '';
  let i = 0;
  while (i < chars.length) {
    const c = chars[i]!;
    i++;
    if (c === '*') {
      // Consecutive stars mean the same as one; collapsing them keeps the RegExp linear.
      while (chars[i] === '*') i++;
      out += '.*';
    } else if (c === '?') {
      out += '.';
    } else if (c === '[') {
      let j = i;
      if (chars[j] === '!') j++;
      if (chars[j] === ']') j++;
      while (j < chars.length && chars[j] !== ']') j++;
      if (j >= chars.length) {
        out += '\\[';
        continue;
      }
      const negated = chars[i] === '!';
      const body = chars.slice(negated ? i + 1 : i, j);
      i = j + 1;
      const set = translateSet(body);
      if (set === '') out += negated ? '.' : '(?!)';
      else out += negated ? `[^${set}]` : `[${set}]`;
    } else {
      out += escapeChar(c);
    }
  }
  return new RegExp(`^(?:${out})$`, 'su');
}

export function fnmatch(name: string, pattern: string): boolean {
  return fnmatchToRegExp(pattern).test(name);
}
