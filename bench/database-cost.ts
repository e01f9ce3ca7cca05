import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { processCpuMs } from './machine-cpu.js';

/**
 * What a stretch of work cost PostgreSQL itself, so a figure holds on other machines:
 *  - commits: `pg_stat_database.xact_commit` of the database (every committed transaction, reads
 *    included). A backend publishes its counts at most once a second while busy and 10 s after it
 *    went idle (PostgreSQL 15's PGSTAT_IDLE_INTERVAL), so each reading waits for that first;
 *  - CPU: user + system time of the server processes serving the database (`pg_stat_activity`
 *    pids, read from /proc, so the database must run on this machine), summed over the stretch.
 *    A connection opened during the stretch counts from its start; one closed during it is lost,
 *    which the pool's 30 s idle timeout makes rare over a few seconds of load.
 */
const STATS_IDLE_FLUSH_MS = 11_000;

export interface DatabaseCostReading {
  commits: number;
  cpuMsByPid: Map<number, number>;
}

export class DatabaseCost {
  private constructor(private readonly connection: pg.Client, private readonly database: string) {}

  static async connect(url: string): Promise<DatabaseCost> {
    const connection = new pg.Client({ connectionString: url });
    await connection.connect();
    return new DatabaseCost(connection, new URL(url).pathname.slice(1));
  }

  /** Waits until the database's backends have published their counts, then reads them. */
  async read(): Promise<DatabaseCostReading> {
    await sleep(STATS_IDLE_FLUSH_MS);
    // A snapshot taken earlier in this connection's transaction would be reused: clear it.
    await this.connection.query('SELECT pg_stat_clear_snapshot()');
    const { rows: [stats] } = await this.connection.query<{ commits: string }>(
      'SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = $1', [this.database]);
    const { rows } = await this.connection.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [this.database]);
    return { commits: Number(stats!.commits), cpuMsByPid: new Map(rows.map((row) => [row.pid, processCpuMs(row.pid)])) };
  }

  /** Commits and backend CPU milliseconds between two readings. */
  static between(before: DatabaseCostReading, after: DatabaseCostReading): { commits: number; cpuMs: number } {
    let cpu = 0;
    for (const [pid, ms] of after.cpuMsByPid) cpu += ms - (before.cpuMsByPid.get(pid) ?? 0);
    // The reading connection's own commits (one per statement above) are not the work's.
    return { commits: after.commits - before.commits - READING_COMMITS, cpuMs: cpu };
  }

  close(): Promise<void> {
    return this.connection.end();
  }
}

/** Transactions one `read` commits itself (its three statements), counted once they are published. */
const READING_COMMITS = 3;
