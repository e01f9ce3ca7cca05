import { setTimeout as sleep } from 'node:timers/promises';
import { runMixedLoad, type LoadTally } from './soak-load.js';
import { soakVerdict, soakTable, type SoakRow } from './soak-report.js';
import { startChildServer } from './servers.js';

/**
 * `npm run soak -- --minutes N`: agentd (the real app, in a child process, on SQLite with the
 * webhook channel) under mixed load for N minutes, sampled every 10 s: RSS, heap, external and
 * array-buffer memory after a full GC, active handles, event-loop delay. Passes when RSS grew less
 * than 5 % after the warm-up, handles did not grow and no request failed. Not part of `npm test`.
 */
const SAMPLE_MS = 10_000;
/**
 * Ten minutes: the time SQLite's page caches (bounded at 16 MB per connection, bench/SOAK.md) take
 * to fill at this load; growth before it is caches filling, not a leak.
 */
const WARM_UP_MS = 600_000;
const WEBHOOK_SECRET = 'soak-webhook-secret';

function minutesArgument(argv: string[]): number {
  const at = argv.indexOf('--minutes');
  const raw = at === -1 ? '10' : argv[at + 1];
  const minutes = Number(raw);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error(`--minutes must be a positive number (got ${raw})`);
  return minutes;
}

async function main(): Promise<void> {
  const minutes = minutesArgument(process.argv.slice(2));
  const durationMs = minutes * 60_000;
  // A short soak (trying the script out) keeps a third of its time as warm-up.
  const warmUpMs = Math.min(WARM_UP_MS, durationMs / 3);
  const server = await startChildServer('agentd', {
    config: { webhook: { enabled: true, port: 0, secret: WEBHOOK_SECRET, rate_limit_rpm: 1_000_000 } },
  });
  const stop = new AbortController();
  const load = runMixedLoad({ url: server.url, apiKey: server.apiKey, webhookUrl: server.webhookUrl!, webhookSecret: WEBHOOK_SECRET }, stop.signal);
  const rows: SoakRow[] = [];
  const startedAt = Date.now();
  process.stdout.write(`soak: ${minutes} min against ${server.url} (warm-up ${Math.round(warmUpMs / 1000)} s, a sample every ${SAMPLE_MS / 1000} s)\n`);
  try {
    while (Date.now() - startedAt < durationMs) {
      await sleep(Math.min(SAMPLE_MS, durationMs - (Date.now() - startedAt)));
      const row = { seconds: Math.round((Date.now() - startedAt) / 1000), ...(await server.sample!()), ...counts(load.tally) };
      rows.push(row);
      process.stdout.write(`${soakTable([row], false)}\n`);
    }
  } finally {
    stop.abort();
    await load.done;
    await server.close();
  }
  process.stdout.write(`\n${soakTable(rows, true)}\n`);
  const verdict = soakVerdict(rows, warmUpMs / 1000);
  for (const line of verdict.lines) process.stdout.write(`${line}\n`);
  for (const example of load.tally.examples) process.stdout.write(`  failed: ${example}\n`);
  process.stdout.write(`${verdict.pass ? 'PASS' : 'FAIL'}\n`);
  process.exitCode = verdict.pass ? 0 : 1;
}

function counts(tally: LoadTally): { requests: number; failures: number } {
  return { requests: tally.requests, failures: tally.failures };
}

void main();
