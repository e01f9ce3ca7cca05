/**
 * A small Markdown reader for answers: text in, a plain tree out, which markdown-view.tsx turns
 * into elements. Nothing is ever parsed as HTML: markup in an answer stays text, and a link keeps
 * its target only when that is http, https or mailto (docs/decisions.md#answers-are-markdown-never-html).
 */

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong' | 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'break' };

export type Block =
  | { type: 'heading'; level: number; children: Inline[] }
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'code'; lang: string; text: string }
  | { type: 'list'; ordered: boolean; start: number; items: Inline[][] };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^ {0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^ {0,3}(\d{1,9})[.)]\s+(.*)$/;
const SAFE_URL = /^(https?:\/\/|mailto:)/i;
/** Emphasis inside emphasis this deep is shown as text: bounds the work on hostile input. */
const MAX_NESTING = 4;

export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      i += 1;
      // An unclosed fence runs to the end, as a streaming answer's open block does.
      while (i < lines.length && !lines[i]!.trimStart().startsWith(marker)) body.push(lines[i++]!);
      i += 1;
      blocks.push({ type: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ type: 'heading', level: heading[1]!.length, children: parseInline(heading[2]!) });
      i += 1;
      continue;
    }
    const listStart = BULLET.exec(line) ?? NUMBERED.exec(line);
    if (listStart) {
      const ordered = NUMBERED.test(line);
      const pattern = ordered ? NUMBERED : BULLET;
      const items: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && !FENCE.test(lines[i]!)) {
        const item = pattern.exec(lines[i]!);
        if (item) items.push(item[item.length - 1]!);
        else if (/^\s/.test(lines[i]!) && items.length > 0) items[items.length - 1] += `\n${lines[i]!.trim()}`;
        else break;
        i += 1;
      }
      const start = ordered ? Number(NUMBERED.exec(line)![1]) : 1;
      blocks.push({ type: 'list', ordered, start, items: items.map(parseInline) });
      continue;
    }
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !startsBlock(lines[i]!)) paragraph.push(lines[i++]!.trim());
    blocks.push({ type: 'paragraph', children: parseInline(paragraph.join('\n')) });
  }
  return blocks;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || BULLET.test(line) || NUMBERED.test(line);
}

/**
 * The first position at or after `from` where `accept` holds, remembered per key: a later question
 * from a position not past the last answer reuses it, so input full of unmatched markers costs
 * about one pass per kind of marker instead of one pass per marker.
 */
class Finder {
  private readonly memo = new Map<string, { from: number; found: number }>();
  constructor(private readonly text: string) {}

  next(needle: string, from: number, accept?: (at: number) => boolean): number {
    const key = accept ? `valid ${needle}` : needle;
    const known = this.memo.get(key);
    if (known && known.from <= from && (known.found === -1 || known.found >= from)) return known.found;
    let found = this.text.indexOf(needle, from);
    while (found !== -1 && accept && !accept(found)) found = this.text.indexOf(needle, found + 1);
    this.memo.set(key, { from, found });
    return found;
  }
}

export function parseInline(text: string, depth = 0): Inline[] {
  const find = new Finder(text);
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') out.push({ type: 'text', text: plain });
    plain = '';
  };
  const push = (node: Inline) => {
    flush();
    out.push(node);
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '\n') {
      push({ type: 'break' });
      i += 1;
      continue;
    }
    if (char === '`') {
      const run = /^`+/.exec(text.slice(i, i + 16))![0];
      const end = find.next(run, i + run.length);
      if (end !== -1) {
        push({ type: 'code', text: text.slice(i + run.length, end).replace(/\n/g, ' ').trim() || text.slice(i + run.length, end) });
        i = end + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if ((char === '*' || char === '_') && depth < MAX_NESTING) {
      const emphasis = readEmphasis(text, find, i, depth);
      if (emphasis) {
        push(emphasis.node);
        i = emphasis.next;
        continue;
      }
    }
    if (char === '[') {
      const link = readLink(text, find, i, depth);
      if (link) {
        if (link.node) push(link.node);
        else plain += text.slice(i, link.next);
        i = link.next;
        continue;
      }
    }
    if ((char === 'h' || char === 'H') && /^https?:\/\//i.test(text.slice(i, i + 8)) && !/\w/.test(text[i - 1] ?? '')) {
      const url = /^https?:\/\/[^\s<>()"'`]+/i.exec(text.slice(i, i + 2048))![0].replace(/[.,;:!?]+$/, '');
      push({ type: 'link', href: url, children: [{ type: 'text', text: url }] });
      i += url.length;
      continue;
    }
    plain += char;
    i += 1;
  }
  flush();
  return out;
}

/** `**strong**`, `__strong__`, `*em*`, `_em_`; `_` only at word edges, so snake_case stays text. */
function readEmphasis(text: string, find: Finder, at: number, depth: number): { node: Inline; next: number } | null {
  const char = text[at]!;
  const double = text[at + 1] === char;
  const marker = double ? char + char : char;
  const open = at + marker.length;
  if (open >= text.length || /\s/.test(text[open]!)) return null;
  if (char === '_' && /\w/.test(text[at - 1] ?? '')) return null;
  const closes = (close: number) => {
    const after = text[close + marker.length] ?? '';
    const lone = double || text[close + 1] !== char;
    return !/\s/.test(text[close - 1]!) && lone && !(char === '_' && /\w/.test(after));
  };
  const close = find.next(marker, open + 1, closes);
  if (close === -1) return null;
  const children = parseInline(text.slice(open, close), depth + 1);
  return { node: { type: double ? 'strong' : 'em', children }, next: close + marker.length };
}

/**
 * `[label](target)`. A target that is not http, https or mailto (javascript:, data:, a relative
 * path) gives no node: the caller shows the whole source as text.
 */
function readLink(text: string, find: Finder, at: number, depth: number): { node: Inline | null; next: number } | null {
  const labelEnd = find.next('](', at + 1);
  if (labelEnd === -1 || text.slice(at + 1, labelEnd).includes('\n')) return null;
  const targetEnd = find.next(')', labelEnd + 2);
  if (targetEnd === -1) return null;
  const target = text.slice(labelEnd + 2, targetEnd).trim();
  if (/\s/.test(target)) return null;
  const next = targetEnd + 1;
  if (!SAFE_URL.test(target)) return { node: null, next };
  return { node: { type: 'link', href: target, children: parseInline(text.slice(at + 1, labelEnd), depth + 1) }, next };
}
