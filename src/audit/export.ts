import { ChainWalk, GENESIS_HASH } from '../storage/ports/audit-chain.js';
import type { ChainedAuditEvent } from '../storage/ports/audit.js';

/**
 * `agentd audit export` writes one event per line (JSON Lines), oldest first, each with the hash
 * that links it to the line before; `agentd audit verify FILE` checks such a file on its own.
 */

/** Every field of an exported line, in the order written: all of them are covered by `hash`. */
const FIELDS = [
  'id', 'timestamp', 'event_type', 'category', 'result', 'severity', 'actor', 'source', 'subsystem', 'action',
  'session_id', 'task_id', 'detail', 'prev_hash', 'hash',
] as const;
const REQUIRED_TEXT = new Set(['id', 'timestamp', 'event_type', 'category', 'result', 'severity', 'prev_hash', 'hash']);
const HASH = /^[0-9a-f]{64}$/;

export function exportLine(event: ChainedAuditEvent): string {
  return JSON.stringify(Object.fromEntries(FIELDS.map((field) => [field, event[field]])));
}

export type ExportVerdict =
  | {
    ok: true;
    count: number;
    /** `prev_hash` of the first line: the genesis hash when the export starts with the log. */
    start: string | null;
    /** Whether a pruning record in the file vouches for `start` (the export starts where retention cut). */
    startPruned: boolean;
    /** `hash` of the last line: compare it with the log to know nothing was cut off the end. */
    end: string | null;
  }
  | { ok: false; count: number; line: number; id: string | null; reason: string };

/**
 * Checks an export line by line: each line is one event with exactly the exported fields, its hash
 * matches its content, and it links to the line before. What cannot be checked from the file alone
 * (lines cut off the start or the end) is what `start` and `end` are for.
 */
export async function verifyExport(lines: AsyncIterable<string>): Promise<ExportVerdict> {
  const walk = new ChainWalk();
  let number = 0;
  for await (const text of lines) {
    number++;
    if (text.trim() === '') continue;
    const broken = (reason: string, id: string | null = null): ExportVerdict => ({ ok: false, count: walk.count, line: number, id, reason });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return broken('not a JSON line');
    }
    const problem = shapeProblem(parsed);
    const id = typeof (parsed as { id?: unknown })?.id === 'string' ? (parsed as { id: string }).id : null;
    if (problem) return broken(problem, id);
    const reason = walk.next(parsed as ChainedAuditEvent);
    if (reason) return { ok: false, count: walk.count, line: number, id, reason };
  }
  const startPruned = walk.start !== null && walk.start !== GENESIS_HASH && walk.startVouched;
  return { ok: true, count: walk.count, start: walk.start, startPruned, end: walk.head };
}

/** Why a parsed line is not an exported event; null when it is one. */
function shapeProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const record = value as Record<string, unknown>;
  // A field the hash does not cover could be added or changed unseen: an export has none.
  const extra = Object.keys(record).find((key) => !(FIELDS as readonly string[]).includes(key));
  if (extra !== undefined) return `field "${extra}" is not part of an exported event`;
  for (const field of FIELDS) {
    const v = record[field];
    if (field === 'detail') {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'field "detail" must be an object';
    } else if (REQUIRED_TEXT.has(field) ? typeof v !== 'string' : v !== null && typeof v !== 'string') {
      return `field "${field}" is missing or not ${REQUIRED_TEXT.has(field) ? 'a string' : 'a string or null'}`;
    }
  }
  if (!HASH.test(record.hash as string) || !HASH.test(record.prev_hash as string)) return 'hash and prev_hash must be 64 hexadecimal digits';
  return null;
}
