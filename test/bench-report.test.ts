import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { machineInfo, writeReport } from '../bench/report.js';

describe('bench report', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-bench-report-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one table row per scenario with its headline, the goal count and every figure', () => {
    const file = join(dir, 'RESULTS.md');
    writeReport(file, machineInfo(), [
      {
        scenario: 'http: a | b', figures: { agentd_rps: 900, bare_rps: 1000, ratio: 0.9 }, goal: 'ratio >= 0.85', met: true,
        headline: { agentd: '900 req/s', baseline: '1000 req/s', ratio: 0.9 },
      },
      { scenario: 'cold start', figures: { agentd_ms: 512 }, goal: 'agentd_ms <= 300', met: false },
    ], new Date());
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('- Goals met: 1 of 2');
    expect(text).toContain('| http: a \\| b | 900 req/s | 1000 req/s | 0.900 | ratio >= 0.85 | yes |');
    expect(text).toContain('| cold start | agentd_ms=512 | — | — | agentd_ms <= 300 | **no** |');
    expect(text).toContain(`Node ${process.version}`);
    expect(text).toContain('- http: a \\| b: agentd_rps=900, bare_rps=1000, ratio=0.9');
  });
});
