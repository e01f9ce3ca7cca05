import type { Manifest, ManifestDiff, RecordedTool } from './manifest.js';

/** One tool of a pending change, as the operator reviews it. */
export interface ToolChangeReview {
  name: string;
  change: 'added' | 'removed' | 'changed';
  /** Old and new description and schema as a line diff (`-` old, `+` new, two spaces both). */
  diff: string;
}

/** A pending manifest change in full: what the operator accepts by its digest. */
export interface ManifestReview {
  pinned_digest: string;
  pending_digest: string;
  /** The first 12 hex digits of `pending_digest`, which the accept confirm string names. */
  pending_prefix: string;
  tools: ToolChangeReview[];
}

/**
 * How many hex digits of the pending digest the accept confirm string carries: 64 bits, so a server
 * that controls its own list cannot search out another change whose digest starts like the reviewed one.
 */
export const CONFIRM_DIGEST_CHARS = 16;

/** Above this many line pairs the diff shows all old lines, then all new ones. */
const MAX_DIFF_CELLS = 250_000;

const NOT_RECORDED_EARLIER = 'not recorded (pinned by an earlier version)';
const NOT_RECORDED_BOUND = 'not recorded (over the size bound of the pin)';
const NOT_SHOWN_BOUND = 'not shown (over the size bound; the digests cover it)';

/** The change between the pin and the list seen, tool by tool, old against new. */
export function reviewOf(pinned: Manifest, seen: Manifest, diff: ManifestDiff): ManifestReview {
  const old = (name: string): RecordedTool | string => {
    if (pinned.recorded === null) return NOT_RECORDED_EARLIER;
    return pinned.recorded.get(name) ?? NOT_RECORDED_BOUND;
  };
  const seenOf = (name: string): RecordedTool | string => seen.recorded?.get(name) ?? NOT_SHOWN_BOUND;
  const tools: ToolChangeReview[] = [
    ...diff.added.map((name) => ({ name, change: 'added' as const, diff: toolDiff(null, seenOf(name)) })),
    ...diff.removed.map((name) => ({ name, change: 'removed' as const, diff: toolDiff(old(name), null) })),
    ...diff.changed.map((name) => ({ name, change: 'changed' as const, diff: toolDiff(old(name), seenOf(name)) })),
  ];
  return { pinned_digest: pinned.digest, pending_digest: seen.digest, pending_prefix: seen.digest.slice(0, CONFIRM_DIGEST_CHARS), tools };
}

/** The review as one text: what diagnostics and the controls list show. */
export function reviewText(review: ManifestReview): string {
  const head = `pending digest ${review.pending_digest} (pinned ${review.pinned_digest})`;
  return [head, ...review.tools.map((tool) => `${tool.change} tool ${JSON.stringify(tool.name)}:\n${tool.diff}`)].join('\n\n');
}

function toolDiff(before: RecordedTool | string | null, after: RecordedTool | string | null): string {
  const lines: string[] = [];
  for (const [label, part] of [['description', 'description'], ['input schema', 'schema']] as const) {
    lines.push(`  ${label}:`);
    const side = (value: RecordedTool | string | null, sign: string): string[] | null => {
      if (value === null) return [];
      if (typeof value === 'string') {
        lines.push(`    ${sign} ${sign === '-' ? 'old' : 'new'}: ${value}`);
        return null;
      }
      return value[part].split('\n');
    };
    const oldLines = side(before, '-');
    const newLines = side(after, '+');
    if (oldLines === null && newLines !== null) lines.push(...newLines.map((line) => `    + ${line}`));
    else if (newLines === null && oldLines !== null) lines.push(...oldLines.map((line) => `    - ${line}`));
    else if (oldLines !== null && newLines !== null) lines.push(...lineDiff(oldLines, newLines).map((line) => `    ${line}`));
  }
  return lines.join('\n');
}

/** A longest-common-subsequence line diff: `- ` old only, `+ ` new only, `  ` both. */
export function lineDiff(a: readonly string[], b: readonly string[]): string[] {
  if (a.length * b.length > MAX_DIFF_CELLS) return [...a.map((line) => `- ${line}`), ...b.map((line) => `+ ${line}`)];
  const common: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (common[i + 1]![j]! >= common[i]![j + 1]!) {
      out.push(`- ${a[i++]}`);
    } else {
      out.push(`+ ${b[j++]}`);
    }
  }
  while (i < a.length) out.push(`- ${a[i++]}`);
  while (j < b.length) out.push(`+ ${b[j++]}`);
  return out;
}
