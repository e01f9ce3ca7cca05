import { setTimeout as sleep } from 'node:timers/promises';
import type { RunOutcome, RunStore } from '../storage/ports/runs.js';
import type { Logger } from '../log.js';
import { StorageFullError, StorageUnavailableError } from '../storage/ports/errors.js';
import type { RunEvent } from '../storage/ports/runs.js';

/** How often the end of a run is tried again while the disk is full. */
export const END_RETRY_MS = 1_000;

export interface EndWriterOptions {
  store: RunStore;
  log: Logger;
  /** The service is closing: an end that does not get through is left to the next start. */
  closing(): boolean;
}

/**
 * Stores the end of a run, its one terminal event. On a full disk or an unreachable database it
 * is tried again until it is stored (freeing space or the database coming back is enough): until
 * then the run stays live, its claim is renewed, readers see its final state and viewers wait for
 * the terminal event. Should the claim lapse meanwhile (`lost`), it gives up: another replica ends
 * the run (a try that gets through first finds it closed, `RunClosedError`, and viewers get that
 * end). Once the service is closing it gives up too; the next start (or another replica) marks the
 * run interrupted.
 */
export class EndWriter {
  constructor(private readonly options: EndWriterOptions) {}

  /** The first try is queued before this returns, in the caller's turn of the event loop. */
  async write(runId: string, outcome: RunOutcome, terminal: RunEvent, releaseClaim: boolean, lost: () => boolean): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.options.store.finish(runId, outcome, terminal, { releaseClaim });
      } catch (err) {
        const passing = err instanceof StorageFullError || err instanceof StorageUnavailableError;
        // With its claim lapsed the run is another replica's to end (it reaps it): this one stops here.
        if (!passing || this.options.closing() || lost()) throw err;
        const why = err instanceof StorageFullError ? 'the storage is full' : 'the database is unavailable';
        if (attempt === 1) this.options.log.error(`could not store the end of run ${runId} (${why}); trying again until it is stored`);
      }
      // Quick at first (a dropped connection is usually back at once), then every END_RETRY_MS.
      await sleep(Math.min(END_RETRY_MS, 100 * 2 ** (attempt - 1)), undefined, { ref: false });
    }
  }
}
