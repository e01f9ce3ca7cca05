import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, type } from 'node:os';
import type { ScenarioResult } from './types.js';

/** What the figures were measured on: they mean little without it. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  loadBefore: number[];
}

export function machineInfo(): MachineInfo {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${process.arch}`,
    node: process.version,
    loadBefore: loadavg(),
  };
}

/** `bench/RESULTS.md`: one row per scenario, then every figure, so a reader can check the headline. */
export function writeReport(path: string, machine: MachineInfo, results: ScenarioResult[], startedAt: Date): void {
  const met = results.filter((r) => r.met).length;
  const minutes = (Date.now() - startedAt.getTime()) / 60_000;
  const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(' / ');
  const lines = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` on ${startedAt.toISOString()} (${minutes.toFixed(1)} min). ` +
      'Every baseline ran in the same run, on the same machine, alternating with agentd where the scenario compares the two.',
    '',
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}`,
    `- Load average (1/5/15 min) before: ${load(machine.loadBefore)}; after: ${load(loadavg())}`,
    `- Goals met: ${met} of ${results.length}`,
    '',
    '| Scenario | agentd | Baseline | Ratio | Goal | Met |',
    '|---|---|---|---|---|---|',
    ...results.map((r) => row([
      r.scenario,
      r.headline?.agentd ?? figuresText(r),
      r.headline?.baseline ?? '—',
      r.headline?.ratio === undefined ? '—' : r.headline.ratio.toFixed(3),
      r.goal,
      r.met ? 'yes' : '**no**',
    ])),
    '',
    '## All figures',
    '',
    ...results.flatMap((r) => [`- ${cell(r.scenario)}: ${figuresText(r)}`]),
    '',
  ];
  writeFileSync(path, lines.join('\n'));
}

function figuresText(result: ScenarioResult): string {
  return Object.entries(result.figures).map(([k, v]) => `${k}=${v}`).join(', ');
}

function row(cells: string[]): string {
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** A table cell: pipes would split it and newlines would end the row. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
