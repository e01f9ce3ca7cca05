import type { ProcessSample } from './servers.js';

/** One sample of the soak: the server process, and the load's totals so far. */
export interface SoakRow extends ProcessSample {
  seconds: number;
  requests: number;
  failures: number;
}

/** RSS may grow by less than this fraction between the end of the warm-up and the end. */
const MAX_RSS_GROWTH = 0.05;
/**
 * The write-ahead log may hold this much at most: it starts over past 16 MiB and is cut back to
 * 64 MiB when it does (docs/decisions.md#the-wal-starts-over); one that never starts over grows past it.
 */
const MAX_WAL_BYTES = 80 * 1024 * 1024;
/** Samples compared at each end for handle growth (a leak keeps climbing; load alone jitters). */
const HANDLE_WINDOW = 3;

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export function soakTable(rows: SoakRow[], withHeader: boolean): string {
  const header = '    t(s)  requests  failed   rss(MB)  heap(MB)  external(MB)  arrayBuffers(MB)  handles  lag p99(ms)  lag max(ms)  wal(MB)';
  const lines = rows.map((r) =>
    `${String(r.seconds).padStart(8)}${String(r.requests).padStart(10)}${String(r.failures).padStart(8)}${mb(r.rss).padStart(10)}` +
    `${mb(r.heapUsed).padStart(10)}${mb(r.external).padStart(14)}${mb(r.arrayBuffers).padStart(18)}` +
    `${String(r.handles).padStart(9)}${r.lag.p99Ms.toFixed(1).padStart(13)}${r.lag.maxMs.toFixed(1).padStart(13)}${mb(r.walBytes).padStart(9)}`);
  return (withHeader ? [header, ...lines] : lines).join('\n');
}

/**
 * PASS when, after the warm-up: RSS grew less than 5 % (first sample after the warm-up against
 * the last), the fewest handles of the last samples is not above the most of the first ones, the
 * write-ahead log stayed within its bound, and no request failed.
 */
export function soakVerdict(rows: SoakRow[], warmUpSeconds: number): { pass: boolean; lines: string[] } {
  const after = rows.filter((r) => r.seconds >= warmUpSeconds);
  if (after.length < 2) return { pass: false, lines: ['too few samples after the warm-up to judge; soak longer'] };
  const first = after[0]!;
  const last = after[after.length - 1]!;
  const growth = (last.rss - first.rss) / first.rss;
  const window = Math.max(1, Math.min(HANDLE_WINDOW, Math.floor(after.length / 2)));
  const handlesBefore = Math.max(...after.slice(0, window).map((r) => r.handles));
  const handlesAfter = Math.min(...after.slice(-window).map((r) => r.handles));
  const walMax = Math.max(...rows.map((r) => r.walBytes));
  const lagP99 = Math.max(...rows.map((r) => r.lag.p99Ms));
  const lagMax = Math.max(...rows.map((r) => r.lag.maxMs));
  const checks = [
    { ok: growth < MAX_RSS_GROWTH, line: `RSS after warm-up ${mb(first.rss)} MB → ${mb(last.rss)} MB: ${(growth * 100).toFixed(1)} % (limit ${MAX_RSS_GROWTH * 100} %)` },
    { ok: handlesAfter <= handlesBefore, line: `handles: at most ${handlesBefore} in the first ${window} samples after warm-up, at least ${handlesAfter} in the last ${window}` },
    { ok: walMax <= MAX_WAL_BYTES, line: `write-ahead log: at most ${mb(walMax)} MB, ${mb(last.walBytes)} MB at the end (limit ${mb(MAX_WAL_BYTES)} MB)` },
    { ok: last.failures === 0, line: `requests: ${last.requests}, failed: ${last.failures}` },
  ];
  return {
    pass: checks.every((c) => c.ok),
    lines: [
      ...checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.line}`),
      `     after warm-up: heap ${mb(first.heapUsed)} MB → ${mb(last.heapUsed)} MB, external ${mb(first.external)} MB → ${mb(last.external)} MB, ` +
        `arrayBuffers ${mb(first.arrayBuffers)} MB → ${mb(last.arrayBuffers)} MB`,
      `     event-loop delay: worst p99 ${lagP99.toFixed(1)} ms, worst max ${lagMax.toFixed(1)} ms`,
    ],
  };
}
