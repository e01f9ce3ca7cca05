import type BetterSqlite3 from 'better-sqlite3';
import { ERASED_TEXT, eraseFromEvent, jsonFragment } from '../shared/erased-text.js';

export { ERASED_TEXT } from '../shared/erased-text.js';

/**
 * Erases the copies of a deleted turn's text that its run keeps: the run's `message` or `response` and every
 * string in its event log equal to the text (the terminal event's `response`, a tool argument that
 * repeated the message). Events are stored as the exact JSON sent on the wire, so an event holding
 * the text is parsed, rewritten and stored again; the others are left byte for byte.
 */
export class RunTextEraser {
  private readonly stmt;

  constructor(db: BetterSqlite3.Database) {
    this.stmt = {
      response: db.prepare('UPDATE runs SET response = ? WHERE id = ? AND response = ?'),
      message: db.prepare('UPDATE runs SET message = ? WHERE id = ? AND message = ?'),
      events: db.prepare('SELECT id, data FROM run_events WHERE run_id = ? AND instr(data, ?) > 0'),
      rewrite: db.prepare('UPDATE run_events SET data = ? WHERE run_id = ? AND id = ?'),
    };
  }

  /** Call inside the transaction that deletes the turn. */
  erase(runId: string, text: string): void {
    if (text === '') return;
    this.stmt.response.run(ERASED_TEXT, runId, text);
    this.stmt.message.run(ERASED_TEXT, runId, text);
    for (const event of this.stmt.events.all(runId, jsonFragment(text)) as { id: number; data: string }[]) {
      const rewritten = eraseFromEvent(event.data, text);
      if (rewritten !== null) this.stmt.rewrite.run(rewritten, runId, event.id);
    }
  }
}
