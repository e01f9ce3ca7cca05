import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Deadline } from './deadline.js';
import { GatewayError } from './errors.js';
import type { Connection } from './pool-connection.js';

/**
 * The gateway's connection pool: 20 connections and 10 kept alive for the gateway as a whole
 * (docs/decisions.md#outbound-one-pool-for-the-whole-gateway); undici's Agent counts per origin only, so:
 * every connection is one undici `Client` (pipelining 1, so one socket and one request at a time)
 * and the pool counts them across all destinations.
 *
 * - At most `maxConnections` exist at once, counting a closing one until its socket has closed.
 *   A request that finds none free waits in a bounded queue until one is, or until its deadline.
 * - At most `maxIdle` idle ones are kept; past that the least recently used is closed.
 * - A connection is pinned: it dials only the addresses the policy checked for the request that
 *   opened it, and is reused only for a request whose own check admitted the address it went to.
 */

export const MAX_CONNECTIONS = 20;
export const MAX_IDLE_CONNECTIONS = 10;
/** Requests allowed to queue for a connection; each also leaves the queue at its own deadline. */
const MAX_WAITING = 1000;

export interface PoolLimits {
  maxConnections?: number;
  maxIdle?: number;
  maxWaiting?: number;
}

export interface PooledRequest {
  url: URL;
  /** Addresses the policy checked for this request, in resolver order. */
  addresses: readonly string[];
  method: Dispatcher.HttpMethod;
  headers: Record<string, string | string[]>;
  body: string | Uint8Array | Readable | null;
  /** Connect timeout for a new connection (the deadline bounds the rest). */
  timeoutMs: number;
  /** Aborts the wait for a connection, the request and its body. */
  deadline: Deadline;
}

export interface PoolStats {
  open: number;
  idle: number;
  waiting: number;
}

const ignore = (): void => undefined;

type ConnectionClass = typeof Connection;
let connectionClass: Promise<ConnectionClass> | null = null;

/**
 * The connection (an undici Client, some 700 KB of code) is imported with the first request, not
 * at start-up: a service that never reaches out does not read it.
 */
function loadConnectionClass(): Promise<ConnectionClass> {
  connectionClass ??= import('./pool-connection.js').then((module) => module.Connection);
  return connectionClass;
}

interface Waiter {
  origin: string;
  addresses: readonly string[];
  connectTimeoutMs: number;
  grant(connection: Connection): void;
  fail(error: unknown): void;
}

export class ConnectionPool {
  private readonly maxConnections: number;
  private readonly maxIdle: number;
  private readonly maxWaiting: number;
  /** Every connection that holds (or is closing) a socket: what the 20 counts. */
  private readonly connections = new Set<Connection>();
  /** Idle connections, least recently used first. */
  private readonly idle: Connection[] = [];
  private readonly waiting: Waiter[] = [];
  /** Connections being closed; each frees a slot when its socket is gone. */
  private retiring = 0;
  private closed = false;
  /** Set by the first request, before any connection is opened or any request waits for one, so never null where used. */
  private Connection: ConnectionClass | null = null;

  constructor(limits: PoolLimits = {}) {
    this.maxConnections = limits.maxConnections ?? MAX_CONNECTIONS;
    this.maxIdle = limits.maxIdle ?? MAX_IDLE_CONNECTIONS;
    this.maxWaiting = limits.maxWaiting ?? MAX_WAITING;
  }

  stats(): PoolStats {
    return { open: this.connections.size, idle: this.idle.length, waiting: this.waiting.length };
  }

  /**
   * Send the request on a pooled connection; resolves when the response headers arrived. The
   * connection goes back to the pool when the response body closes (read to the end, refused, or
   * destroyed by the deadline).
   */
  async request(request: PooledRequest): Promise<Dispatcher.ResponseData> {
    const { url, timeoutMs, deadline } = request;
    this.Connection ??= await loadConnectionClass();
    const connection = await this.acquire(url.origin, request.addresses, timeoutMs, deadline);
    let response: Dispatcher.ResponseData;
    try {
      response = await connection.client.request({
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: deadline,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      this.release(connection);
      throw error;
    }
    // Body errors (a reset, a refused size, the deadline) reach whoever reads the body; this
    // listener only keeps an error nobody is reading yet from becoming an uncaught exception.
    response.body.on('error', ignore);
    response.body.once('close', () => this.release(connection));
    return response;
  }

  /** Refuse new requests, fail the waiting ones, close idle connections and let busy ones finish. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.fail(new GatewayError('the gateway is closed'));
    this.idle.length = 0;
    const closing = [...this.connections].map((connection) => {
      connection.retired = true;
      return (connection.busy ? connection.client.close() : connection.client.destroy()).catch(ignore);
    });
    await Promise.all(closing);
    this.connections.clear();
  }

  private acquire(origin: string, addresses: readonly string[], connectTimeoutMs: number, deadline: Deadline): Promise<Connection> {
    if (this.closed) return Promise.reject(new GatewayError('the gateway is closed'));
    if (deadline.aborted) return Promise.reject(deadline.reason as Error);
    const ready = this.takeIdle(origin, addresses) ?? this.openIfRoom(origin, addresses, connectTimeoutMs);
    if (ready) return Promise.resolve(ready);
    if (this.waiting.length >= this.maxWaiting) {
      return Promise.reject(new GatewayError(`${this.maxWaiting} requests are already waiting for a connection`));
    }
    return new Promise<Connection>((resolve, reject) => {
      const stopListening = deadline.onAbort(() => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(deadline.reason as Error);
      });
      const waiter: Waiter = {
        origin,
        addresses,
        connectTimeoutMs,
        grant: (connection) => {
          stopListening();
          resolve(connection);
        },
        fail: (error) => {
          stopListening();
          reject(error as Error);
        },
      };
      this.waiting.push(waiter);
      this.makeRoom();
    });
  }

  /** The most recently used idle connection that may carry this request. */
  private takeIdle(origin: string, addresses: readonly string[]): Connection | null {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const connection = this.idle[i]!;
      if (!connection.serves(origin, addresses)) continue;
      this.idle.splice(i, 1);
      connection.busy = true;
      return connection;
    }
    return null;
  }

  private openIfRoom(origin: string, addresses: readonly string[], connectTimeoutMs: number): Connection | null {
    if (this.connections.size >= this.maxConnections) return null;
    const connection = new this.Connection!(origin, addresses, connectTimeoutMs, (c) => this.onDisconnect(c));
    this.connections.add(connection);
    return connection;
  }

  private release(connection: Connection): void {
    connection.busy = false;
    if (connection.retired) return;
    if (this.closed || !connection.connected) {
      this.retire(connection);
      return;
    }
    this.idle.push(connection);
    this.pump();
    while (this.idle.length > this.maxIdle) this.retire(this.idle[0]!);
  }

  /** The server (or undici's keep-alive timer) closed the socket: an idle connection is done. */
  private onDisconnect(connection: Connection): void {
    if (!connection.busy) this.retire(connection);
  }

  private retire(connection: Connection): void {
    if (connection.retired) return;
    connection.retired = true;
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    this.retiring++;
    void connection.client
      .destroy()
      .catch(ignore)
      .then(() => {
        this.retiring--;
        this.connections.delete(connection);
        this.pump();
      });
  }

  /** Hand connections to waiting requests: an idle one that fits, else a new one where there is room. */
  private pump(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const waiter = this.waiting[i]!;
      const connection = this.takeIdle(waiter.origin, waiter.addresses) ?? this.openIfRoom(waiter.origin, waiter.addresses, waiter.connectTimeoutMs);
      if (!connection) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      waiter.grant(connection);
    }
    this.makeRoom();
  }

  /**
   * Requests still waiting need a destination no idle connection serves: close idle connections
   * (least recently used first), one per waiting request; each slot frees once its socket closed.
   */
  private makeRoom(): void {
    if (this.closed) return;
    while (this.idle.length > 0 && this.retiring < this.waiting.length) this.retire(this.idle[0]!);
  }
}
