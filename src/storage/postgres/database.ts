import pg from 'pg';
import { redactServiceUrl, withoutPassword } from '../../config/service-url.js';
import type { Logger } from '../../log.js';
import { StorageFullError, StorageUnavailableError } from '../ports/errors.js';

/** A connection that is inside a transaction (`PgDatabase.transaction`), or the pool itself. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

/** A statement and its parameters, to be sent later (`PgDatabase.pipelinedTransaction`). */
export interface Statement {
  text: string;
  values?: readonly unknown[];
}

export interface PgDatabaseOptions {
  /** Connections this process opens at most (`storage.postgres_pool_size`). */
  poolSize?: number;
  /** Connecting gives up after this long: a request waits for a pool slot at most this long too. */
  connectTimeoutMs?: number;
  log?: Logger;
}

const INT8_OID = 20;

/**
 * bigint (`count(*)`, identity columns) as a JS number instead of pg's default string: every such
 * value here (row counts, sequence numbers) stays far below 2^53. Given per pool, not through
 * `pg.types`, which is shared by every pool in the process.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * SQLSTATE classes that mean the server could not be used right now rather than that the
 * statement was wrong: connection exceptions (08), insufficient resources such as too many
 * connections (53, except a full disk), the server shutting down (57P01-57P03).
 */
function isUnavailable(code: string): boolean {
  return code.startsWith('08') || code === '53000' || code === '53200' || code === '53300' || code === '53400' || /^57P0[123]$/.test(code);
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * A driver error as the domain's storage error: unreachable → `StorageUnavailableError` (503),
 * disk full → `StorageFullError` (507); anything else (a bug, a constraint) is returned unchanged.
 */
export function storageError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (code === '53100') return new StorageFullError({ cause: error });
  if (typeof code === 'string' && (isUnavailable(code) || NETWORK_CODES.has(code))) return new StorageUnavailableError({ cause: error });
  // pg's own wording for a connection that ended or never came.
  if (/Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(error.message)) {
    return new StorageUnavailableError({ cause: error });
  }
  return error;
}

/**
 * The PostgreSQL backend's pool: bounded (`poolSize` connections, waiters time out), every error
 * mapped to the storage errors, transactions with a dedicated connection.
 */
export class PgDatabase implements Queryable {
  readonly pool: pg.Pool;
  /** The server and database, without the password: what health and logs show. */
  readonly location: string;
  private readonly url: string;
  private closed = false;

  constructor(url: string, options: PgDatabaseOptions = {}) {
    this.location = redactServiceUrl(url);
    this.url = url;
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
      // A server that vanished without closing the connection (a partition, a host that died) is
      // found by TCP keep-alive instead of leaving a query waiting forever.
      keepAlive: true,
      // A connection sends a statement without waiting for the answer to the one before (each keeps
      // its own result and error): a transaction's BEGIN travels with its first statement, and a
      // closing statement with its COMMIT, instead of costing a round trip each.
      pipeline: true,
      types,
    });
    // An idle connection the server dropped: the pool replaces it; without a listener the process would exit.
    this.pool.on('error', (error) => options.log?.warn(`PostgreSQL connection lost (${error.message}); the pool opens a new one when needed`));
    // A connection the server terminates while checked out may emit 'error' more than once (the
    // server's message, then the socket's end), and the pool listens only once per query: the rest
    // would be unheard and end the process. Every statement on it fails and is handled where it
    // was sent, so the extra events carry nothing new.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  /** `text` (a driver's message) with this database's password hidden, should the driver ever repeat it. */
  scrub(text: string): string {
    return withoutPassword(text, this.url);
  }

  get open(): boolean {
    return !this.closed;
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values as unknown[]);
    } catch (error) {
      throw storageError(error);
    }
  }

  /**
   * Runs `work` in a transaction on one connection: committed when it resolves, rolled back when it
   * throws. BEGIN is not awaited on its own: it is pipelined with `work`'s first statement.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.inTransaction(async (tx) => ({ result: await work(tx), closing: [] }));
  }

  /**
   * Runs `statements` in one transaction sent at once: BEGIN, the statements and COMMIT are
   * pipelined, one round trip for all of them. Each statement starts once the one before it has
   * finished (a lock it took is held, what it wrote is seen). The first that fails leaves the
   * transaction aborted, so the COMMIT rolls it back, and its error is thrown.
   */
  async pipelinedTransaction(statements: readonly Statement[]): Promise<void> {
    await this.inTransaction(async () => ({ result: undefined, closing: statements }));
  }

  /** A transaction whose `closing` statements are pipelined with its COMMIT. */
  private async inTransaction<T>(work: (tx: Queryable) => Promise<{ result: T; closing: readonly Statement[] }>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw storageError(error);
    }
    let broken: unknown = null;
    // A connection that dies while checked out emits 'error' on the client (the pool only listens
    // while it is idle); unheard, that would end the process. The transaction's pending query
    // rejects with it as well, which is where it is handled.
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    // BEGIN can only fail with the connection, and then every statement behind it fails too; its
    // own outcome is awaited with the COMMIT.
    const begun = client.query('BEGIN');
    begun.catch(() => undefined);
    try {
      const { result, closing } = await work(client);
      await Promise.all([begun, ...closing.map((s) => client.query(s.text, s.values as unknown[])), client.query('COMMIT')]);
      return result;
    } catch (error) {
      broken = error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw storageError(error);
    } finally {
      client.off('error', onError);
      // A connection whose transaction failed on a network error is not handed to the next caller.
      client.release(broken !== null && storageError(broken) instanceof StorageUnavailableError ? (broken as Error) : undefined);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
