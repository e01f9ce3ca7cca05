import { describe, expect, it } from 'vitest';
import { eventHash, GENESIS_HASH } from '../storage/ports/audit-chain.js';
import { exportLine, verifyExport, type ExportVerdict } from './export.js';
import { PRUNED_EVENT_TYPE, type AuditEvent, type ChainedAuditEvent } from '../storage/ports/audit.js';

function chain(count: number, from = GENESIS_HASH, first?: Partial<AuditEvent>): ChainedAuditEvent[] {
  let prev = from;
  return Array.from({ length: count }, (_, i) => {
    const event: AuditEvent = {
      id: `evt_${i}`, timestamp: new Date(Date.UTC(2026, 0, 5, 10, i)).toISOString(), event_type: 'web.login', category: 'web',
      result: i % 2 ? 'deny' : 'allow', severity: 'info', actor: null, source: '10.0.0.1', subsystem: 'auth', action: null,
      session_id: null, task_id: null, detail: { i, nested: { note: 'Überweisung "quoted"', n: [1, 2.5, null] } },
      ...(i === 0 ? first : {}),
    };
    const hash = eventHash(prev, event);
    const chained = { ...event, prev_hash: prev, hash };
    prev = hash;
    return chained;
  });
}

async function* linesOf(lines: string[]): AsyncIterable<string> {
  yield* lines;
}
const verify = (lines: string[]): Promise<ExportVerdict> => verifyExport(linesOf(lines));

describe('audit export', () => {
  it('round-trips: every line verifies, and the start and end of the chain are reported', async () => {
    const events = chain(5);
    const lines = events.map(exportLine);
    expect(JSON.parse(lines[0]!)).toEqual(events[0]);
    expect(await verify(lines)).toEqual({ ok: true, count: 5, start: GENESIS_HASH, startPruned: false, end: events[4]!.hash });
    // A part from the middle verifies on its own, continuing from the hash before it.
    expect(await verify(lines.slice(2))).toMatchObject({ ok: true, count: 3, start: events[1]!.hash, startPruned: false });
    expect(await verify([])).toEqual({ ok: true, count: 0, start: null, startPruned: false, end: null });
  });

  it('says when the export starts where retention pruned the log', async () => {
    const pruned = 'a'.repeat(64);
    const events = chain(3, pruned, { event_type: PRUNED_EVENT_TYPE, detail: { removed: 10, last_hash: pruned } });
    expect(await verify(events.map(exportLine))).toMatchObject({ ok: true, startPruned: true, start: pruned });
  });

  it('detects a changed, removed, reordered or added line, and any line that is not an exported event', async () => {
    const events = chain(4);
    const lines = events.map(exportLine);
    const edited = (i: number, change: (event: Record<string, unknown>) => void) => {
      const copy = [...lines];
      const event = JSON.parse(copy[i]!) as Record<string, unknown>;
      change(event);
      copy[i] = JSON.stringify(event);
      return copy;
    };
    const cases: [string, string[], { line: number; reason: RegExp }][] = [
      ['a changed result', edited(2, (e) => (e.result = 'error')), { line: 3, reason: /hash does not match the content/ }],
      ['a changed nested detail', edited(1, (e) => ((e.detail as { nested: { n: number[] } }).nested.n = [1])), { line: 2, reason: /hash does not match/ }],
      ['a removed line', [lines[0]!, lines[2]!, lines[3]!], { line: 2, reason: /prev_hash does not match/ }],
      ['two lines swapped', [lines[0]!, lines[2]!, lines[1]!, lines[3]!], { line: 2, reason: /prev_hash does not match/ }],
      ['a line repeated', [lines[0]!, lines[1]!, lines[1]!], { line: 3, reason: /prev_hash does not match/ }],
      ['a field the hash does not cover', edited(0, (e) => (e.approved_by = 'someone')), { line: 1, reason: /field "approved_by" is not part/ }],
      ['a missing field', edited(0, (e) => delete e.actor), { line: 1, reason: /field "actor" is missing/ }],
      ['a detail that is no object', edited(0, (e) => (e.detail = 'x')), { line: 1, reason: /"detail" must be an object/ }],
      ['a short hash', edited(3, (e) => (e.hash = 'abc')), { line: 4, reason: /64 hexadecimal digits/ }],
      ['a line that is not JSON', [lines[0]!, '{"id":', lines[1]!], { line: 2, reason: /not a JSON line/ }],
      ['a JSON array', [lines[0]!, '[1,2]'], { line: 2, reason: /not a JSON object/ }],
    ];
    for (const [name, tampered, where] of cases) {
      const verdict = await verify(tampered);
      expect(verdict.ok, name).toBe(false);
      expect(verdict, name).toMatchObject({ line: where.line, reason: expect.stringMatching(where.reason) });
    }
  });

  it('skips blank lines', async () => {
    const lines = chain(2).map(exportLine);
    expect(await verify([lines[0]!, '', lines[1]!, '  '])).toMatchObject({ ok: true, count: 2 });
  });
});
