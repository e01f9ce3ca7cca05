import type { ClaimLease } from '../ports/sessions.js';
import type { CreateOptions, RunEndWrites, RunOutcome, RunStore } from '../ports/runs.js';
import type { CostEntry } from '../ports/costs.js';
import { turnFields, type TurnFields } from '../shared/turn-input.js';
import type { RunEvent, RunEventName, RunHourCount, RunListQuery, RunPage, RunRecord } from '../ports/runs.js';
import { RunClosedError } from '../ports/errors.js';
import { RUN_COLUMNS, toRecord, type RunRow } from '../shared/run-rows.js';
import { runListStatements, runPage } from '../shared/run-list.js';
import { hourRow, runsByHourSql } from '../shared/hourly.js';
import { removeInSlices } from '../shared/slices.js';
import type { PgDatabase, Queryable } from './database.js';
import { TAKE_CLAIM } from './take-claim.js';
import { recordCost } from './cost-store.js';
import { insertTurns, readHistory } from './turn-store.js';
import { WriteQueue } from './write-queue.js';

/**
 * A run's events in one statement, in order (one array per column), only while the run is in
 * progress: FOR SHARE waits for a replica ending the run (it holds the row FOR UPDATE) and then
 * sees its end, so no event can follow the terminal one.
 */
const APPEND_EVENTS = `INSERT INTO run_events (run_id, id, name, data)
  SELECT r.id, e.id, e.name, e.data FROM runs r, unnest($2::integer[], $3::text[], $4::text[]) AS e(id, name, data)
  WHERE r.id = $1 AND r.status IN ('pending', 'running') FOR SHARE OF r`;
/** Events one INSERT carries at most; more start the next batch. */
const MAX_EVENT_BATCH = 500;
/**
 * How long a run's start and events wait for its end before they are written on their own. A
 * short run (an offline answer, a quick tool) then has its whole log in the commit of its end;
 * a longer one shows its progress this late at most.
 */
export const EVENT_HOLD_MS = 100;
/** The CTE (left open for a further condition) that marks the channel message of run $1 started, erasing its text. */
const INBOX_STARTED = `started AS (UPDATE channel_inbox SET waiting = false, content = '' WHERE run_id = $1 AND waiting`;
/**
 * The CTE (left open for a further condition) that marks the API session of run $1 used, as
 * `SessionStore.touch` does, in the commit that creates the run: an API run ($16, its source) on
 * a session ($2) at its creation time ($7). Other runs have no API session to mark.
 */
const SESSION_USED = `used AS (UPDATE api_sessions SET last_used_at = $7, used = nextval('api_sessions_used') WHERE id = $2 AND $16::text = 'api'`;

/**
 * A run's start and events not written yet (an entry lives only while they wait): they go with its
 * end, or alone once `EVENT_HOLD_MS` has passed or the batch is full.
 */
interface HeldWrites {
  start: { startedAt: string; event: RunEvent } | null;
  events: RunEvent[];
  /** Settles once they are committed (or failed to be). */
  stored: Promise<void>;
  settle(outcome: Promise<void>): void;
  timer: NodeJS.Timeout;
}

/**
 * A run's call costs and turns kept for the commit of its end (`RunEndWrites`); an entry lives
 * from its first write until that commit, bounded by the run's model calls (the loop's iteration
 * cap) and its two turns.
 */
interface EndingWrites {
  costs: CostEntry[];
  turns: TurnFields[];
  /** Settles once they are committed (or failed to be). */
  stored: Promise<void>;
  settle(outcome: Promise<void>): void;
}

/** The write queue's key of start-up recovery (a run or session id equal to it would only share its queue). */
const RECOVERY = 'recover interrupted';

/**
 * Runs and their event logs on PostgreSQL. Writes commit in call order (`WriteQueue`) per session
 * for creations (a session's runs list in creation order) and per run for its log, so the writes
 * of different runs never wait for each other; a run's events are appended only once its creation
 * has committed (the registry awaits it). A run's start and events are held (`HeldWrites`) and
 * written in the commit of its end when it ends soon enough: each is acknowledged only once that
 * commit is done. Each run records the replica (`owner`) that created it.
 */
export class PgRunStore implements RunStore {
  private readonly writes = new WriteQueue();
  private readonly held = new Map<string, HeldWrites>();
  private readonly ending = new Map<string, EndingWrites>();

  constructor(private readonly db: PgDatabase, private readonly owner: string, private readonly now: () => number = Date.now) {}

  /** A run's costs and turns go in the commit of its end (`EndingWrites`). */
  readonly endWrites: RunEndWrites = {
    cost: (runId, entry) => {
      const ending = this.endingOf(runId);
      ending.costs.push(entry);
      return ending.stored;
    },
    turns: (runId, turns) => {
      // Checked now, so a bad turn fails its caller rather than the run's end.
      const rows = turns.map((turn) => turnFields(turn, this.now));
      const ending = this.endingOf(runId);
      ending.turns.push(...rows);
      return ending.stored;
    },
    flush: (runId) => {
      const ending = this.ending.get(runId);
      if (!ending) return Promise.resolve();
      this.ending.delete(runId);
      ending.settle(this.writeEnding(runId, ending));
      return ending.stored;
    },
  };

  /** Creating a run marks its API session used in the same statement (`SESSION_USED`). */
  readonly touchesSessions = true;

  /**
   * A channel message's run is created with its id: the message stops waiting and its text is
   * erased in the same statement (so the same commit) that creates the run, never before it and
   * never without it. Other runs match no message.
   */
  async create(run: RunRecord): Promise<void> {
    await this.writes.run(run.session_id, () => this.db.query(`WITH ${INBOX_STARTED}), ${SESSION_USED})
      INSERT INTO runs (owner, ${RUN_COLUMNS})
      VALUES ($20, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`, runValues(run, this.owner)));
  }

  /**
   * One statement: the claim is inserted (or an expired one taken over) by a data-modifying CTE,
   * which frees the budget holds earlier holders left on the session (`TAKE_CLAIM`), and the run
   * inserted from its result, so only when the claim was taken.
   */
  async createClaimed(run: RunRecord, lease: ClaimLease, options: CreateOptions = {}): Promise<boolean> {
    const { history } = options;
    if (history) {
      // The history after the creation, in its commit: a statement of its own, so it sees the turns
      // of the run whose end freed the claim (committed while the creation waited for that row).
      return this.writes.run(run.session_id, () => this.db.transaction(async (tx) => {
        const [created, turns] = await Promise.all([this.insertClaimed(tx, run, lease), readHistory(tx, run.session_id, history.limit)]);
        if (created) history.read(turns);
        return created;
      }));
    }
    return this.writes.run(run.session_id, () => this.insertClaimed(this.db, run, lease));
  }

  private async insertClaimed(db: Queryable, run: RunRecord, lease: ClaimLease): Promise<boolean> {
    const { rowCount } = await db.query(`WITH ${TAKE_CLAIM('$2', '$1', "'run'", '$20', '$21', '$22')},
      ${INBOX_STARTED}
        AND EXISTS (SELECT 1 FROM claim)),
      ${SESSION_USED}
        AND EXISTS (SELECT 1 FROM claim))
      INSERT INTO runs (owner, ${RUN_COLUMNS})
      SELECT $20::text, $1::text, session_id, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text, $11::text,
        $12::text, $13::bigint, $14::bigint, $15::double precision, $16::text, $17::text, $18::text, $19::text FROM claim`, [...runValues(run, this.owner), lease.expires_at, lease.now]);
    return rowCount === 1;
  }

  start(runId: string, startedAt: string, event: RunEvent): Promise<void> {
    const held = this.hold(runId);
    held.start = { startedAt, event };
    return held.stored;
  }

  /** Held with the run's start and earlier events (`HeldWrites`), in call order. */
  appendEvent(runId: string, event: RunEvent): Promise<void> {
    const held = this.hold(runId);
    held.events.push(event);
    if (held.events.length >= MAX_EVENT_BATCH) this.release(runId);
    return held.stored;
  }

  /** `session_claims` is in this database (`PgSessionClaimStore`). */
  readonly claimsWithRuns = true;

  /**
   * With the start and events still held and the run's costs and turns, in one transaction: one
   * commit for the run's whole log and what its turn wrote. Refused (the run ended elsewhere), the
   * costs and turns are written on their own; failed, they wait for the next try of the end.
   */
  finish(runId: string, outcome: RunOutcome, event: RunEvent, options: { releaseClaim?: boolean } = {}): Promise<void> {
    const held = this.take(runId);
    const ending = this.ending.get(runId);
    this.ending.delete(runId);
    const releaseClaim = options.releaseClaim ?? false;
    const written = this.writes.run(runId, () => held || ending
      ? this.db.transaction(async (tx) => {
        await Promise.all([
          ...(held ? heldStatements(tx, runId, held) : []), ...(ending ? endingStatements(tx, ending) : []),
          finishRun(tx, runId, outcome, event, releaseClaim),
        ]);
      })
      : finishRun(this.db, runId, outcome, event, releaseClaim));
    if (ending) {
      written.then(() => ending.settle(written), (error: unknown) => {
        if (error instanceof RunClosedError) ending.settle(this.writeEnding(runId, ending));
        else this.ending.set(runId, ending);
      });
    }
    if (!held) return written;
    held.settle(written);
    // Acknowledged after the held events it carries (their promise adopts `written` a few ticks
    // later): a viewer is handed the run's end only after them.
    return written.then(() => held.stored);
  }

  /** The run's open `HeldWrites`, opened (its timer started) when there is none. */
  private hold(runId: string): HeldWrites {
    const open = this.held.get(runId);
    if (open) return open;
    let settle!: (outcome: Promise<void>) => void;
    const stored = new Promise<void>((resolve) => (settle = resolve));
    const held: HeldWrites = {
      start: null, events: [], stored, settle, timer: setTimeout(() => this.release(runId), EVENT_HOLD_MS).unref(),
    };
    this.held.set(runId, held);
    return held;
  }

  /** The run's open `EndingWrites`, opened when there is none. */
  private endingOf(runId: string): EndingWrites {
    const open = this.ending.get(runId);
    if (open) return open;
    let settle!: (outcome: Promise<void>) => void;
    const stored = new Promise<void>((resolve) => (settle = resolve));
    const ending: EndingWrites = { costs: [], turns: [], stored, settle };
    this.ending.set(runId, ending);
    return ending;
  }

  /** The run's costs and turns on their own (its end was refused or given up), in one transaction. */
  private writeEnding(runId: string, ending: EndingWrites): Promise<void> {
    return this.writes.run(runId, () => this.db.transaction(async (tx) => {
      await Promise.all(endingStatements(tx, ending));
    }));
  }

  /** Removes the run's held writes from waiting (later events start a new batch). */
  private take(runId: string): HeldWrites | undefined {
    const held = this.held.get(runId);
    if (!held) return undefined;
    clearTimeout(held.timer);
    this.held.delete(runId);
    return held;
  }

  /** Writes the run's held start and events now, on their own (the run has not ended in time). */
  private release(runId: string): void {
    const held = this.take(runId);
    if (!held) return;
    // Alone, the one statement is its own commit; the start with events need a transaction.
    const alone = held.start === null || held.events.length === 0;
    held.settle(this.writes.run(runId, async () => {
      if (alone) return heldStatements(this.db, runId, held)[0];
      return this.db.transaction(async (tx) => {
        await Promise.all(heldStatements(tx, runId, held));
      });
    }));
  }

  async get(runId: string): Promise<RunRecord | null> {
    return read(this.db, runId);
  }

  async listBySession(sessionId: string, limit: number): Promise<RunRecord[]> {
    const { rows } = await this.db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE session_id = $1 ORDER BY seq DESC LIMIT $2`, [sessionId, limit]);
    return rows.map(toRecord);
  }

  async list(query: RunListQuery): Promise<RunPage> {
    const statements = runListStatements(query, (n) => `$${n}`);
    // One snapshot for both: a run created between the page and the count would make them disagree.
    return this.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const { rows } = await tx.query<RunRow>(statements.page, statements.pageParams);
      const count = await tx.query<{ n: number }>(statements.count, statements.params);
      return runPage(rows.map(toRecord), query.limit, count.rows[0]!.n);
    });
  }

  async countByHour(since: string): Promise<RunHourCount[]> {
    const { rows } = await this.db.query<RunHourCount>(runsByHourSql('$1'), [since]);
    return rows.map((row) => hourRow(row, ['runs']));
  }

  async events(runId: string, afterId: number): Promise<RunEvent[]> {
    const { rows } = await this.db.query<{ id: number; name: RunEventName; data: string }>(
      'SELECT id, name, data FROM run_events WHERE run_id = $1 AND id > $2 ORDER BY id', [runId, afterId]);
    return rows;
  }

  /**
   * The unfinished runs this replica created (its previous process died with them), each locked
   * while it is finished. Runs of other replicas are theirs: they may be executing them right now.
   * The runs of a replica that never comes back are ended by the others when their session
   * claims expire (`SessionClaimStore.reapExpired`).
   */
  recoverInterrupted(finishedAt: string, message: string): Promise<string[]> {
    return this.writes.run(RECOVERY, () => this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(`SELECT id FROM runs WHERE status IN ('pending', 'running') AND owner = $1
        ORDER BY seq FOR UPDATE`, [this.owner]);
      for (const row of rows) await interruptRun(tx, row.id, finishedAt, message);
      return rows.map((row) => row.id);
    }));
  }

  pruneFinishedBefore(cutoff: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    // run_events go with their run (ON DELETE CASCADE).
    return removeInSlices(
      async (limit) => (await this.db.query(`DELETE FROM runs WHERE seq IN (
          SELECT seq FROM runs WHERE finished_at IS NOT NULL AND finished_at < $1 ORDER BY finished_at LIMIT $2)`, [cutoff, limit])).rowCount ?? 0,
      { signal: options.signal, isOpen: () => this.db.open },
    );
  }

  /** Resolves once the writes queued so far have settled (the storage is closing): held ones are written now. */
  drain(): Promise<void> {
    for (const runId of [...this.held.keys()]) this.release(runId);
    for (const runId of [...this.ending.keys()]) void this.endWrites.flush(runId);
    return this.writes.drain();
  }
}

/** The run's columns in `RUN_COLUMNS` order ($1 … $19), then its owner ($20). */
function runValues(run: RunRecord, owner: string): unknown[] {
  return [
    run.run_id, run.session_id, run.message, run.status, run.provider, run.resolved_provider, run.created_at, run.started_at,
    run.finished_at, run.response, run.error, JSON.stringify(run.tools_used), run.cost.prompt_tokens, run.cost.completion_tokens,
    run.cost.cost_usd, run.source, run.job_id, run.model, run.first_token_at, owner,
  ];
}

/**
 * The statements of a run's held writes, sent at once (pipelined on a transaction's connection):
 * its start, then its events in one INSERT; each rejects when the run has ended meanwhile.
 */
function heldStatements(db: Queryable, runId: string, held: HeldWrites): Promise<void>[] {
  const statements: Promise<void>[] = [];
  if (held.start) statements.push(startRun(db, runId, held.start.startedAt, held.start.event));
  if (held.events.length > 0) statements.push(appendEvents(db, runId, held.events));
  return statements;
}

/** The statements of a run's costs and turns, sent at once on a transaction's connection. */
function endingStatements(tx: Queryable, ending: EndingWrites): Promise<void>[] {
  const statements = ending.costs.map((entry) => recordCost(tx, entry));
  // Each API session's turn count grows with its turns, as `TurnStore.addMany` with `countOnSession`.
  if (ending.turns.length > 0) statements.push(insertTurns(tx, ending.turns, true));
  return statements;
}

async function appendEvents(db: Queryable, runId: string, events: readonly RunEvent[]): Promise<void> {
  const { rowCount } = await db.query(APPEND_EVENTS, [runId, events.map((e) => e.id), events.map((e) => e.name), events.map((e) => e.data)]);
  if (rowCount !== events.length) throw new RunClosedError(runId);
}

async function read(db: Queryable, runId: string): Promise<RunRecord | null> {
  const { rows } = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [runId]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * One statement, so one round trip and (outside a transaction) its own commit. In progress, not
 * only pending: ending a run left running without events also opens its log; a finished run
 * refuses (the event is inserted from the updated row only).
 */
async function startRun(db: Queryable, runId: string, startedAt: string, event: RunEvent): Promise<void> {
  const { rowCount } = await db.query(`WITH started AS (UPDATE runs SET status = 'running', started_at = $1
      WHERE id = $2 AND status IN ('pending', 'running') RETURNING id)
    INSERT INTO run_events (run_id, id, name, data) SELECT id, $3::integer, $4::text, $5::text FROM started`,
  [startedAt, runId, event.id, event.name, event.data]);
  if (rowCount !== 1) throw new RunClosedError(runId);
}

/**
 * Stores a run's outcome and terminal event; refused when the run has finished already: another
 * replica may have ended it as interrupted (its lease ran out) while this one was still executing it.
 */
async function finishRun(db: Queryable, runId: string, outcome: RunOutcome, event: RunEvent, releaseClaim = false): Promise<void> {
  // One statement (one round trip): the event is inserted from the updated row, so only when the
  // update matched; the run's session claim (`releaseClaim`) goes either way, as a release would.
  const { rowCount } = await db.query(`WITH finished AS (UPDATE runs SET status = $2, finished_at = $3, response = $4, error = $5, tools_used = $6,
      prompt_tokens = $7, completion_tokens = $8, cost_usd = $9, model = $14, first_token_at = $15
      WHERE id = $1 AND status IN ('pending', 'running') RETURNING id),
    released AS (DELETE FROM session_claims WHERE $13::boolean AND holder_id = $1)
    INSERT INTO run_events (run_id, id, name, data) SELECT id, $10::integer, $11::text, $12::text FROM finished`, [
    runId, outcome.status, outcome.finished_at, outcome.response, outcome.error, JSON.stringify(outcome.tools_used),
    outcome.cost.prompt_tokens, outcome.cost.completion_tokens, outcome.cost.cost_usd, event.id, event.name, event.data, releaseClaim,
    outcome.model, outcome.first_token_at,
  ]);
  if (rowCount !== 1) throw new RunClosedError(runId);
}

/**
 * Ends an unfinished run as `error` with `message` and a terminal `run.error` event (after a
 * `run.start` if it never started), holding its row until the transaction ends. False when the run
 * is unknown or has finished.
 */
export async function interruptRun(tx: Queryable, runId: string, finishedAt: string, message: string): Promise<boolean> {
  const { rows } = await tx.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND status IN ('pending', 'running') FOR UPDATE`, [runId]);
  if (!rows[0]) return false;
  const current = toRecord(rows[0]);
  const last = await tx.query<{ id: number }>('SELECT coalesce(max(id), 0) AS id FROM run_events WHERE run_id = $1', [runId]);
  let lastId = last.rows[0]!.id;
  if (lastId === 0) {
    // Never started (still pending): its log opens with run.start like every other.
    const data = JSON.stringify({ run_id: runId, session_id: current.session_id, provider: current.resolved_provider });
    await startRun(tx, runId, finishedAt, { id: ++lastId, name: 'run.start', data });
  }
  const summary = { resolved_provider: current.resolved_provider, tools_used: current.tools_used, cost: current.cost };
  await finishRun(
    tx,
    runId,
    {
      status: 'error', finished_at: finishedAt, response: null, error: message, tools_used: current.tools_used, cost: current.cost,
      model: current.model, first_token_at: current.first_token_at,
    },
    { id: lastId + 1, name: 'run.error', data: JSON.stringify({ run_id: runId, error: message, ...summary }) },
  );
  return true;
}
