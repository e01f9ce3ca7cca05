import type { RunOutcome, RunStore } from '../ports/runs.js';
import type { RunEvent, RunEventName, RunHourCount, RunListQuery, RunPage, RunRecord } from '../ports/runs.js';
import { RunClosedError } from '../ports/errors.js';
import { RUN_COLUMNS, toRecord, type RunRow } from '../shared/run-rows.js';
import { runListStatements, runPage } from '../shared/run-list.js';
import { hourRow, runsByHourSql } from '../shared/hourly.js';
import type { Database } from './database.js';
import { removeInSlices } from '../shared/slices.js';
import type { SqliteUnitOfWork } from './unit-of-work.js';

/** Runs and their event logs on the service's SQLite file; writes go through the unit of work. */
export class SqliteRunStore implements RunStore {
  private readonly stmt;
  private readonly startTx: (runId: string, startedAt: string, event: RunEvent) => void;
  private readonly finishTx: (runId: string, outcome: RunOutcome, event: RunEvent) => void;
  private readonly appendTx: (runId: string, event: RunEvent) => void;

  constructor(
    private readonly database: Database,
    private readonly uow: SqliteUnitOfWork,
  ) {
    const db = database.db;
    this.stmt = {
      insert: db.prepare(`INSERT INTO runs (${RUN_COLUMNS}) VALUES (@id, @session_id, @message, @status, @provider,
        @resolved_provider, @created_at, @started_at, @finished_at, @response, @error, @tools_used,
        @prompt_tokens, @completion_tokens, @cost_usd, @source, @job_id, @model, @first_token_at)`),
      // In progress, not only pending: recovery also opens the log of a run left running without events.
      start: db.prepare(`UPDATE runs SET status = 'running', started_at = ? WHERE id = ? AND status IN ('pending', 'running')`),
      finish: db.prepare(`UPDATE runs SET status = @status, finished_at = @finished_at, response = @response,
        error = @error, tools_used = @tools_used, prompt_tokens = @prompt_tokens,
        completion_tokens = @completion_tokens, cost_usd = @cost_usd, model = @model, first_token_at = @first_token_at
        WHERE id = @id AND status IN ('pending', 'running')`),
      inProgress: db.prepare(`SELECT 1 FROM runs WHERE id = ? AND status IN ('pending', 'running')`).pluck(),
      appendEvent: db.prepare('INSERT INTO run_events (run_id, id, name, data) VALUES (?, ?, ?, ?)'),
      get: db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`),
      list: db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE session_id = ? ORDER BY seq DESC LIMIT ?`),
      events: db.prepare('SELECT id, name, data FROM run_events WHERE run_id = ? AND id > ? ORDER BY id'),
      lastEventId: db.prepare('SELECT coalesce(max(id), 0) AS id FROM run_events WHERE run_id = ?').pluck(),
      unfinished: db.prepare(`SELECT id FROM runs WHERE status IN ('pending', 'running') ORDER BY seq`).pluck(),
      // run_events go with their run (ON DELETE CASCADE).
      pruneBatch: db.prepare(`DELETE FROM runs WHERE seq IN (
          SELECT seq FROM runs WHERE finished_at IS NOT NULL AND finished_at < ? ORDER BY finished_at LIMIT ?)`),
    };
    // A run's log ends with its terminal event: a write to a run not in progress is refused.
    this.startTx = db.transaction((runId: string, startedAt: string, event: RunEvent) => {
      if (this.stmt.start.run(startedAt, runId).changes !== 1) throw new RunClosedError(runId);
      this.stmt.appendEvent.run(runId, event.id, event.name, event.data);
    });
    this.appendTx = db.transaction((runId: string, event: RunEvent) => {
      if (this.stmt.inProgress.get(runId) === undefined) throw new RunClosedError(runId);
      this.stmt.appendEvent.run(runId, event.id, event.name, event.data);
    });
    this.finishTx = db.transaction((runId: string, outcome: RunOutcome, event: RunEvent) => {
      const finished = this.stmt.finish.run({
        id: runId,
        status: outcome.status,
        finished_at: outcome.finished_at,
        response: outcome.response,
        error: outcome.error,
        tools_used: JSON.stringify(outcome.tools_used),
        prompt_tokens: outcome.cost.prompt_tokens,
        completion_tokens: outcome.cost.completion_tokens,
        cost_usd: outcome.cost.cost_usd,
        model: outcome.model,
        first_token_at: outcome.first_token_at,
      });
      if (finished.changes !== 1) throw new RunClosedError(runId);
      this.stmt.appendEvent.run(runId, event.id, event.name, event.data);
    });
  }

  create(run: RunRecord): Promise<void> {
    return this.write(() => this.stmt.insert.run({
      id: run.run_id,
      session_id: run.session_id,
      message: run.message,
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
      source: run.source,
      job_id: run.job_id,
      model: run.model,
      first_token_at: run.first_token_at,
    }));
  }

  start(runId: string, startedAt: string, event: RunEvent): Promise<void> {
    return this.write(() => this.startTx(runId, startedAt, event));
  }

  appendEvent(runId: string, event: RunEvent): Promise<void> {
    return this.write(() => this.appendTx(runId, event));
  }

  /** The claims of this backend are in memory (`InMemorySessionClaimStore`), not in this database. */
  readonly claimsWithRuns = false;

  finish(runId: string, outcome: RunOutcome, event: RunEvent): Promise<void> {
    return this.write(() => this.finishTx(runId, outcome, event));
  }

  async get(runId: string): Promise<RunRecord | null> {
    return this.read(runId);
  }

  async listBySession(sessionId: string, limit: number): Promise<RunRecord[]> {
    return (this.stmt.list.all(sessionId, limit) as RunRow[]).map(toRecord);
  }

  async list(query: RunListQuery): Promise<RunPage> {
    const statements = runListStatements(query, () => '?');
    const db = this.database.db;
    // Both reads run in this one synchronous call on the connection every write goes through, so no
    // run can be created between the page and the count.
    const rows = (db.prepare(statements.page).all(...statements.pageParams) as RunRow[]).map(toRecord);
    const counted = db.prepare(statements.count).pluck().get(...statements.params) as number;
    return runPage(rows, query.limit, counted);
  }

  async countByHour(since: string): Promise<RunHourCount[]> {
    return (this.database.db.prepare(runsByHourSql('?')).all(since) as RunHourCount[]).map((row) => hourRow(row, ['runs']));
  }

  async events(runId: string, afterId: number): Promise<RunEvent[]> {
    return this.stmt.events.all(runId, afterId) as { id: number; name: RunEventName; data: string }[];
  }

  async pruneFinishedBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return removeInSlices(
      (limit) => this.stmt.pruneBatch.run(cutoff, limit).changes,
      { signal: options.signal, isOpen: () => this.database.open },
    );
  }

  recoverInterrupted(finishedAt: string, message: string): Promise<string[]> {
    return this.uow.run(() => {
      const ids = this.stmt.unfinished.all() as string[];
      for (const id of ids) {
        const current = this.read(id)!;
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
          {
            status: 'error', finished_at: finishedAt, response: null, error: message, tools_used: current.tools_used, cost: current.cost,
            model: current.model, first_token_at: current.first_token_at,
          },
          event,
        );
      }
      return ids;
    });
  }

  private read(runId: string): RunRecord | null {
    const row = this.stmt.get.get(runId) as RunRow | undefined;
    return row ? toRecord(row) : null;
  }

  private async write(write: () => unknown): Promise<void> {
    await this.uow.run(write);
  }
}
