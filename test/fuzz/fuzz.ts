import { Agent } from 'node:http';
import fc from 'fast-check';
import { violations, type Listener } from './invariants.js';
import type { Pools } from './pools.js';
import type { GeneratedRequest } from './request-parts.js';
import { NoResponseError, send, type WireRequest, type WireResponse } from './send.js';

export interface FuzzOptions {
  seed: number;
  requests: number;
  /** Requests in flight at once (one batch of the property). */
  concurrency: number;
  deadlineMs: number;
}

export interface FuzzStats {
  sent: number;
  statuses: Map<number, number>;
  slowestMs: number;
  /** The request that took `slowestMs`, shortly. */
  slowest: string;
}

/**
 * Sends `options.requests` requests drawn from `arbitrary` (seeded: the same seed draws the same
 * requests) to one listener, `concurrency` at a time, and fails on the first batch in which a
 * response breaks an invariant, naming the seed and the offending requests.
 */
export async function fuzz(listener: Listener, base: URL, arbitrary: fc.Arbitrary<GeneratedRequest>, pools: Pools, options: FuzzOptions): Promise<FuzzStats> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const stats: FuzzStats = { sent: 0, statuses: new Map(), slowestMs: 0, slowest: '' };
  const one = async (generated: GeneratedRequest): Promise<string | null> => {
    const request = pools.fill(generated);
    let response: WireResponse;
    try {
      response = await send(base, request, agent, options.deadlineMs);
    } catch (error) {
      if (error instanceof NoResponseError) return describe(request, null, [error.message]);
      throw error;
    }
    stats.sent++;
    stats.statuses.set(response.status, (stats.statuses.get(response.status) ?? 0) + 1);
    if (response.ms > stats.slowestMs) {
      stats.slowestMs = response.ms;
      stats.slowest = `${request.method} ${request.target.slice(0, 80)} (body ${request.body?.length ?? 0} B) → ${response.status}`;
    }
    pools.learn(response);
    const broken = violations(listener, request, response);
    return broken.length > 0 ? describe(request, response, broken) : null;
  };
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(arbitrary, { minLength: options.concurrency, maxLength: options.concurrency }), async (batch) => {
        const failures = (await Promise.all(batch.map(one))).filter((f) => f !== null);
        if (failures.length > 0) throw new Error(failures.join('\n'));
      }),
      {
        seed: options.seed,
        numRuns: Math.ceil(options.requests / options.concurrency),
        // The service keeps state between requests, so a shrunk case would not replay the same
        // conditions; the offending requests themselves are printed instead.
        endOnFailure: true,
        reporter: (details) => {
          if (!details.failed) return;
          const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
          throw new Error(
            `${listener} fuzzing failed in batch ${details.numRuns} (reproduce with AGENTD_FUZZ_SEED=${options.seed} ` +
            `AGENTD_FUZZ_REQUESTS=${options.requests}):\n${cause}`,
          );
        },
      },
    );
  } finally {
    agent.destroy();
  }
  return stats;
}

/** The request and what came back, short enough to read (long values cut). */
function describe(request: WireRequest, response: WireResponse | null, broken: string[]): string {
  const cut = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…(${text.length})` : text);
  const lines = [
    `  ✗ ${broken.join('; ')}`,
    `    ${request.method} ${cut(request.target, 300)}`,
    ...request.headers.map(([name, value]) => `    ${name}: ${cut(value, 120)}`),
    `    body: ${request.body ? JSON.stringify(cut(request.body.toString('latin1'), 300)) : '(none)'}`,
  ];
  if (response) lines.push(`    → ${response.status} ${JSON.stringify(response.headers)} ${JSON.stringify(cut(response.body.toString('utf8'), 300))}`);
  return lines.join('\n');
}
