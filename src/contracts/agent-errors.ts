import { ProviderRequestError, ProviderUnavailableError, UnknownProviderError } from '../providers/errors.js';
import { censor } from '../security/secrets/secrets.js';
import { StorageFullError, StorageUnavailableError } from '../storage/ports/errors.js';

/**
 * Errors of the agent runtime. Each has a `code` the HTTP layer maps to a catalogue code and status
 * (one table in `src/http/error-mapping.ts`), and a message written for the operator, because it
 * reaches them verbatim (an error envelope or a `run.error` event).
 */
export type AgentErrorCode =
  | 'session_not_found'
  | 'session_busy'
  | 'run_not_found'
  | 'run_finished'
  | 'budget_exceeded'
  | 'unpriced_model'
  | 'iteration_limit'
  | 'cancelled'
  | 'capacity'
  | 'shutting_down'
  /** A write the agent needed did not commit. */
  | 'storage'
  /** ... because the disk is full. */
  | 'storage_full'
  /** ... because the database could not be reached. */
  | 'storage_unavailable'
  /** What another replica must do could not be asked of it (the bus between replicas is unreachable). */
  | 'coordination_unavailable';

export class AgentError extends Error {
  override readonly name: string = 'AgentError';
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const sessionNotFound = (id: string) => new AgentError('session_not_found', `session '${truncate(id)}' not found`);
export const runNotFound = (id: string) => new AgentError('run_not_found', `run '${truncate(id)}' not found`);
export const sessionBusy = (id: string) =>
  new AgentError('session_busy', `a run is already in flight on session '${truncate(id)}'; wait for it to finish or cancel it`);
export const runFinished = (id: string, status: string) => new AgentError('run_finished', `run '${truncate(id)}' has already finished (${status})`);
export const shuttingDown = () => new AgentError('shutting_down', 'the service is shutting down');
/** Why work stops whose session claim this replica could not renew within its lease. */
export const claimLost = () => new AgentError(
  'storage_unavailable',
  'interrupted: this replica could not renew its claim on the session within the lease (the database was unreachable); another replica may take the session over',
);

/** `what` could not be stored because of `err`: `storage_full` when the disk is full, else `storage`. */
export function notStored(err: unknown, what: string): AgentError {
  if (err instanceof StorageFullError) return new AgentError('storage_full', `the storage is full: ${what}`);
  if (err instanceof StorageUnavailableError) return new AgentError('storage_unavailable', `the database is unavailable: ${what}`);
  return new AgentError('storage', `${what}; see the service log`);
}

function truncate(id: string): string {
  return id.length > 80 ? `${id.slice(0, 80)}…` : id;
}

/**
 * The operator-facing text of a failure, for `run.error` events. Errors of the agent and provider
 * layers are written for the operator (and scrubbed of keys by the provider layer); anything else
 * is a bug whose message may carry internals, so it is replaced by a generic text (and logged).
 */
export function failureMessage(err: unknown): { message: string; expected: boolean } {
  if (err instanceof AgentError) return { message: err.message, expected: true };
  if (EXPECTED_ERRORS.some((type) => err instanceof type)) return { message: censor((err as Error).message), expected: true };
  return { message: 'internal error while running the agent (details are in the service log)', expected: false };
}

const EXPECTED_ERRORS = [ProviderRequestError, ProviderUnavailableError, UnknownProviderError, StorageFullError, StorageUnavailableError];
