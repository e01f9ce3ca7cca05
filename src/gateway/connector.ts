import { Agent, buildConnector } from 'undici';
import { GatewayError } from './errors.js';

/**
 * DNS-rebinding protection at the socket level. The policy resolved the host once and checked
 * every address; those addresses are pinned here, and the connector opens sockets to them only.
 * The connector never resolves a name, so no second DNS answer can move a connection. The URL's
 * host stays everywhere else: undici derives the Host header and the TLS servername (SNI and the
 * certificate check) from the origin, not from the address we dial.
 */

/** Key of a pinned destination, computed the same way from a request URL and from undici's options. */
export function pinKey(protocol: string, hostname: string, port: string | number): string {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const effectivePort = port === '' || port === undefined || port === null ? (protocol === 'https:' ? 443 : 80) : Number(port);
  return `${protocol}//${host}:${effectivePort}`;
}

/** Checked addresses per destination, bounded (least recently pinned evicted first). */
export class PinnedAddresses {
  private readonly pins = new Map<string, readonly string[]>();

  constructor(private readonly capacity = 256) {}

  set(key: string, addresses: readonly string[]): void {
    this.pins.delete(key);
    if (this.pins.size >= this.capacity) {
      const oldest = this.pins.keys().next().value;
      if (oldest !== undefined) this.pins.delete(oldest);
    }
    this.pins.set(key, addresses);
  }

  get(key: string): readonly string[] | undefined {
    return this.pins.get(key);
  }
}

/** Errors after which the next checked address is worth a try (the host may be multi-homed). */
const TRY_NEXT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

type Connect = buildConnector.connector;

export function pinnedConnector(pins: PinnedAddresses, connectTimeoutMs: number): Connect {
  // `rejectUnauthorized: true` is stated rather than inherited: TLS verification is not negotiable.
  const dial = buildConnector({ timeout: connectTimeoutMs, rejectUnauthorized: true });
  return (options, callback) => {
    const addresses = pins.get(pinKey(options.protocol, options.hostname, options.port));
    if (!addresses || addresses.length === 0) {
      callback(new GatewayError(`no checked address for ${options.hostname}; refusing to connect`), null);
      return;
    }
    const attempt = (index: number): void => {
      dial({ ...options, hostname: addresses[index]! }, (error, socket) => {
        const code = (error as NodeJS.ErrnoException | null)?.code;
        if (error && index + 1 < addresses.length && code !== undefined && TRY_NEXT.has(code)) {
          attempt(index + 1);
          return;
        }
        if (error) callback(error, null);
        else callback(null, socket!);
      });
    };
    attempt(0);
  };
}

/**
 * Pool limits from the spec: 20 connections, 10 keep-alive. undici caps connections per origin
 * (`connections: 20`); it has no count-based cap on idle sockets, so "10 keep-alive" is mapped to
 * time: an idle socket is closed after `keepAliveTimeout` (10 s, or less if the server asks), and
 * never kept longer than `keepAliveMaxTimeout`. Idle sockets are therefore at most the 20 open
 * ones and drain to zero shortly after traffic stops.
 */
export const POOL_CONNECTIONS = 20;
export const KEEP_ALIVE_TIMEOUT_MS = 10_000;

export function createAgent(pins: PinnedAddresses, timeoutMs: number): Agent {
  return new Agent({
    connections: POOL_CONNECTIONS,
    pipelining: 1,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: pinnedConnector(pins, timeoutMs),
  });
}
