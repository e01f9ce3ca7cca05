import type { AuditSink } from '../storage/ports/audit.js';
import { InteractiveApproval } from '../policy/approval.js';
import type { Approver } from '../policy/approver.js';
import { systemResolver, type Resolver } from '../policy/destination.js';
import { NetworkPolicy } from '../policy/network-policy.js';
import type { Logger } from '../log.js';
import { AuditWrites } from './audit.js';
import { Client, type ClientOptions, type GatewayClient, type GatewayParts } from './client.js';
import { ConnectionPool, type PoolLimits, type PoolStats } from './pool.js';
import type { GatewayMetrics } from '../metrics/index.js';
import type { GatewaySocket, WebSocketOptions } from './websocket.js';

/** Where a gateway nobody gave a logger writes: standard error, one message a line. */
const writeToStderr = (message: string): void => {
  process.stderr.write(`${message}\n`);
};
const stderrLogger: Logger = { info: writeToStderr, warn: writeToStderr, error: writeToStderr };

export interface GatewayOptions {
  /** Default: deny everything, so a gateway nobody configured fails closed instead of reaching out. */
  policy?: NetworkPolicy;
  audit?: AuditSink;
  /**
   * Used when `policy.interactiveApproval` is on. Default: a prompt on this process's terminal
   * (stdin/stderr), which denies without asking when stdin is not a terminal.
   */
  approval?: Approver;
  resolver?: Resolver;
  log?: Logger;
  /** Pool limits; the defaults are docs/gateway.md#connection-pool (20 connections, 10 kept alive). */
  pool?: PoolLimits;
  /** Counts every request the gateway ends, and its refusals. */
  metrics?: GatewayMetrics;
}

/** Options of `createClient`: the client's own, plus the setup of the private gateway it runs on. */
export interface StandaloneClientOptions extends ClientOptions, Omit<GatewayOptions, 'pool' | 'metrics'> {}

/**
 * The outbound gateway of one app: its policy, audit sink, approval memory ("allow always"
 * answers), resolver and connection pool. The app creates one and hands its `clientFactory` to
 * providers and tools. Nothing lives at module level, so two gateways in one process share no
 * answer, no policy and no socket.
 */
export class Gateway {
  readonly policy: NetworkPolicy;
  readonly approval: Approver | undefined;
  private readonly parts: GatewayParts;
  private readonly pool: ConnectionPool;

  constructor(options: GatewayOptions = {}) {
    this.policy = options.policy ?? NetworkPolicy.denyAll();
    this.approval =
      options.approval ?? (this.policy.interactiveApproval ? new InteractiveApproval({ audit: options.audit }) : undefined);
    this.pool = new ConnectionPool(options.pool);
    this.parts = {
      policy: this.policy,
      audit: options.audit,
      auditWrites: new AuditWrites(),
      approval: this.approval,
      resolver: options.resolver ?? systemResolver,
      log: options.log ?? stderrLogger,
      pool: this.pool,
      metrics: options.metrics,
    };
  }

  /** A client for one caller (session, run, category); cheap, as the connections are the gateway's. */
  client(options: ClientOptions): GatewayClient {
    return new Client(this.parts, options);
  }

  /** A WebSocket under the policy for `options.category`, pinned and audited like a request (see `openWebSocket`). */
  async webSocket(url: string | URL, options: WebSocketOptions): Promise<GatewaySocket> {
    // Imported on first use: the WebSocket client (undici) is not read at start-up by a service
    // that never opens one.
    const { openWebSocket } = await import('./websocket.js');
    return openWebSocket(this.parts, url, options);
  }

  /** `client` as a bound function, the shape providers and tools take. */
  readonly clientFactory = (options: ClientOptions): GatewayClient => this.client(options);

  /** Forget the session's "allow always" answers; the agent calls this when a session ends. */
  endSession(sessionId: string): void {
    this.approval?.endSession?.(sessionId);
  }

  /** Connections open, idle and requests waiting for one. */
  stats(): PoolStats {
    return this.pool.stats();
  }

  /**
   * Close the connection pool (idle connections at once, busy ones when their request is over) and
   * wait until every audit event of a request already answered is committed.
   */
  async close(): Promise<void> {
    await this.pool.close();
    await this.parts.auditWrites.settled();
  }

  /** A client on a gateway of its own, closed with the client (see `createClient`). */
  static standaloneClient(options: StandaloneClientOptions): GatewayClient {
    const { policy, audit, approval, resolver, log, ...clientOptions } = options;
    const gateway = new Gateway({ policy, audit, approval, resolver, log });
    return new Client(gateway.parts, clientOptions, () => gateway.close());
  }
}

/**
 * For embedders and tests: a client with a private gateway (its own policy, approval memory and
 * pool). Without a policy it denies everything. Closing the client closes its gateway.
 */
export function createClient(options: StandaloneClientOptions): GatewayClient {
  return Gateway.standaloneClient(options);
}
