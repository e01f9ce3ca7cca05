/**
 * A write did not commit because the filesystem holding the data has no space left. Backends raise
 * it instead of their driver's error, so the HTTP layer (507) and the agent can tell a full disk
 * from a bug without knowing the driver. The message names no path: it reaches API clients.
 */
export class StorageFullError extends Error {
  override readonly name = 'StorageFullError';

  constructor(options?: ErrorOptions) {
    super('the storage is full: the write did not commit', options);
  }
}

/**
 * A read the store refused because too many like it are waiting (the audit query reader's bounded
 * queue): the client should retry later (503), nothing is wrong with the data.
 */
export class StorageBusyError extends Error {
  override readonly name = 'StorageBusyError';

  constructor(what: string) {
    super(`too many ${what} are waiting; retry later`);
  }
}

/**
 * The database could not be reached (down, restarting, out of connections, or the network between):
 * nothing was read or written. A condition of the deployment, not a bug, so the HTTP layer answers
 * 503 and a client may retry; the message names no server and no URL.
 */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';

  constructor(options?: ErrorOptions) {
    super('the database is unavailable: nothing was read or written', options);
  }
}

/**
 * A write to a run that is not in progress: it has its terminal event (it finished, or another
 * replica ended it as interrupted when this one's claim on its session lapsed), or it is unknown.
 * Nothing was written: a run's log ends with its one terminal event, whoever wrote it.
 */
export class RunClosedError extends Error {
  override readonly name = 'RunClosedError';

  constructor(readonly runId: string) {
    super(`run '${runId}' is not in progress: its log takes no more events`);
  }
}

/**
 * A new API session was refused: every session the store may hold has a run or chat in flight, so
 * none can be ended to make room. The agent answers it as its `capacity` error (503).
 */
export class SessionsFullError extends Error {
  override readonly name = 'SessionsFullError';

  constructor(max: number) {
    super(`all ${max} API sessions are busy; try again when a run has finished`);
  }
}
