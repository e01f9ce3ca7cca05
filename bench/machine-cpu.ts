import { readFileSync } from 'node:fs';

/**
 * CPU time read from /proc, so a throughput figure can say where the machine's cores went: a
 * process's own time, and how busy all cores were over a stretch. Linux only, like the bench.
 */
const CLOCK_TICKS_PER_S = 100;

/** utime + stime of a process in ms (fields 14 and 15 of /proc/<pid>/stat, after the command in parentheses); 0 once it ended. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return 0;
  }
}

export interface MachineCpuReading {
  busyTicks: number;
  totalTicks: number;
}

/** The machine's CPU counters summed over all cores (the first line of /proc/stat). */
export function readMachineCpu(): MachineCpuReading {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const idle = ticks[3]! + ticks[4]!;
  const total = ticks.slice(0, 8).reduce((sum, t) => sum + t, 0);
  return { busyTicks: total - idle, totalTicks: total };
}

/** The share of all cores' time that was busy between two readings, in percent. */
export function busyPercent(before: MachineCpuReading, after: MachineCpuReading): number {
  const total = after.totalTicks - before.totalTicks;
  return total > 0 ? ((after.busyTicks - before.busyTicks) * 100) / total : 0;
}
