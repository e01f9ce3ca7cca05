import type { Database } from '../storage/database.js';
import type { RunCost, RunEvent, RunEventName, RunRecord, RunStatus } from './types.js';

/** What a finished run records, besides its terminal event. */
export interface RunOutcome {
  status: Extract<RunStatus, 'complete' | 'error' | 'cancelled'>;
  finished_at: string;
  response: string | null;
  error: string | null;
  tools_used: string[];
  cost: RunCost;
}

/** Runs and their event logs. Implemented on SQLite (`SqliteRunStore`). */
export interface RunStore {
  create(run: RunRecord): void;
  /** Status `running` and the `run.start` event, together. */
  start(runId: string, startedAt: string, event: RunEvent): void;
  appendEvent(runId: string, event: RunEvent): void;
  /** The outcome and the terminal event, together: a stored run is finished iff its log is. */
  finish(runId: string, outcome: RunOutcome, event: RunEvent): void;
  get(runId: string): RunRecord | null;
  /** Newest first. */
  listBySession(sessionId: string, limit: number): RunRecord[];
  /** Events with an id above `afterId`, in order. */
  events(runId: string, afterId: number): RunEvent[];
  /**
   * Marks every run left `pending` or `running` (by a process that died) as `error` with `message`
   * and appends a terminal `run.error` event to its log, so a stream of it ends. Returns their ids.
   */
  recoverInterrupted(finishedAt: string, message: string): string[];
}

/** A row of `runs`: the API record flattened (id, tools_used as JSON, cost as three columns). */
type RunRow = Omit<RunRecord, 'run_id' | 'tools_used' | 'cost'> & {
  id: string;
  tools_used: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
};

const RUN_COLUMNS = `id, session_id, status, provider, resolved_provider, created_at, started_at, finished_at,
  response, error, tools_used, prompt_tokens, completion_tokens, cost_usd`;

function toRecord(row: RunRow): RunRecord {
  return {
    run_id: row.id,
    session_id: row.session_id,
    status: row.status,
    provider: row.provider,
    resolved_provider: row.resolved_provider,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    response: row.response,
    error: row.error,
    tools_used: JSON.parse(row.tools_used) as string[],
    cost: { prompt_tokens: row.prompt_tokens, completion_tokens: row.completion_tokens, cost_usd: row.cost_usd },
  };
}

export class SqliteRunStore implements RunStore {
  private readonly stmt;
  private readonly startTx: (runId: string, startedAt: string, event: RunEvent) => void;
  private readonly finishTx: (runId: string, outcome: RunOutcome, event: RunEvent) => void;

  constructor(private readonly database: Database) {
    const db = database.db;
    this.stmt = {
      insert: db.prepare(`INSERT INTO runs (${RUN_COLUMNS}) VALUES (@id, @session_id, @status, @provider,
        @resolved_provider, @created_at, @started_at, @finished_at, @response, @error, @tools_used,
        @prompt_tokens, @completion_tokens, @cost_usd)`),
      start: db.prepare(`UPDATE runs SET status = 'running', started_at = ? WHERE id = ? AND status = 'pending'`),
      finish: db.prepare(`UPDATE runs SET status = @status, finished_at = @finished_at, response = @response,
        error = @error, tools_used = @tools_used, prompt_tokens = @prompt_tokens,
        completion_tokens = @completion_tokens, cost_usd = @cost_usd WHERE id = @id`),
      appendEvent: db.prepare('INSERT INTO run_events (run_id, id, name, data) VALUES (?, ?, ?, ?)'),
      get: db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`),
      list: db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE session_id = ? ORDER BY seq DESC LIMIT ?`),
      events: db.prepare('SELECT id, name, data FROM run_events WHERE run_id = ? AND id > ? ORDER BY id'),
      lastEventId: db.prepare('SELECT coalesce(max(id), 0) AS id FROM run_events WHERE run_id = ?').pluck(),
      unfinished: db.prepare(`SELECT id FROM runs WHERE status IN ('pending', 'running') ORDER BY seq`).pluck(),
    };
    this.startTx = db.transaction((runId: string, startedAt: string, event: RunEvent) => {
      this.stmt.start.run(startedAt, runId);
      this.stmt.appendEvent.run(runId, event.id, event.name, event.data);
    });
    this.finishTx = db.transaction((runId: string, outcome: RunOutcome, event: RunEvent) => {
      this.stmt.finish.run({
        id: runId,
        status: outcome.status,
        finished_at: outcome.finished_at,
        response: outcome.response,
        error: outcome.error,
        tools_used: JSON.stringify(outcome.tools_used),
        prompt_tokens: outcome.cost.prompt_tokens,
        completion_tokens: outcome.cost.completion_tokens,
        cost_usd: outcome.cost.cost_usd,
      });
      this.stmt.appendEvent.run(runId, event.id, event.name, event.data);
    });
  }

  create(run: RunRecord): void {
    this.stmt.insert.run({
      id: run.run_id,
      session_id: run.session_id,
      status: run.status,
      provider: run.provider,
      resolved_provider: run.resolved_provider,
      created_at: run.created_at,
      started_at: run.started_at,
      finished_at: run.finished_at,
      response: run.response,
      error: run.error,
      tools_used: JSON.stringify(run.tools_used),
      prompt_tokens: run.cost.prompt_tokens,
      completion_tokens: run.cost.completion_tokens,
      cost_usd: run.cost.cost_usd,
    });
  }

  start(runId: string, startedAt: string, event: RunEvent): void {
    this.startTx(runId, startedAt, event);
  }

  appendEvent(runId: string, event: RunEvent): void {
    this.stmt.appendEvent.run(runId, event.id, event.name, event.data);
  }

  finish(runId: string, outcome: RunOutcome, event: RunEvent): void {
    this.finishTx(runId, outcome, event);
  }

  get(runId: string): RunRecord | null {
    const row = this.stmt.get.get(runId) as RunRow | undefined;
    return row ? toRecord(row) : null;
  }

  listBySession(sessionId: string, limit: number): RunRecord[] {
    return (this.stmt.list.all(sessionId, limit) as RunRow[]).map(toRecord);
  }

  events(runId: string, afterId: number): RunEvent[] {
    return this.stmt.events.all(runId, afterId) as { id: number; name: RunEventName; data: string }[];
  }

  recoverInterrupted(finishedAt: string, message: string): string[] {
    return this.database.transaction(() => {
      const ids = this.stmt.unfinished.all() as string[];
      for (const id of ids) {
        const current = this.get(id)!;
        let lastId = this.stmt.lastEventId.get(id) as number;
        if (lastId === 0) {
          // Never started (still pending): its log opens with run.start like every other.
          const data = JSON.stringify({ run_id: id, session_id: current.session_id, provider: current.resolved_provider });
          this.startTx(id, finishedAt, { id: ++lastId, name: 'run.start', data });
        }
        const summary = { resolved_provider: current.resolved_provider, tools_used: current.tools_used, cost: current.cost };
        const event: RunEvent = {
          id: lastId + 1,
          name: 'run.error',
          data: JSON.stringify({ run_id: id, error: message, ...summary }),
        };
        this.finishTx(
          id,
          { status: 'error', finished_at: finishedAt, response: null, error: message, tools_used: current.tools_used, cost: current.cost },
          event,
        );
      }
      return ids;
    });
  }
}
