import { Client } from 'undici';
import { pinnedConnector } from './connector.js';

/** An idle connection is closed after this long unused, or sooner if the server says so. */
export const KEEP_ALIVE_TIMEOUT_MS = 10_000;
export const KEEP_ALIVE_MAX_TIMEOUT_MS = 60_000;

/**
 * One connection of the gateway's pool (pool.ts): an undici `Client` with pipelining 1, so one
 * socket and one request at a time, pinned to the addresses the policy checked.
 */
export class Connection {
  readonly client: Client;
  /** The checked address the socket went to; null until connected. */
  address: string | null = null;
  connected = false;
  busy = true;
  retired = false;

  constructor(
    readonly origin: string,
    addresses: readonly string[],
    connectTimeoutMs: number,
    onDisconnect: (connection: Connection) => void,
  ) {
    this.client = new Client(origin, {
      pipelining: 1,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MAX_TIMEOUT_MS,
      connect: pinnedConnector(addresses, connectTimeoutMs, (address) => {
        this.address = address;
      }),
    });
    this.client.on('connect', () => {
      this.connected = true;
    });
    this.client.on('disconnect', () => {
      this.connected = false;
      onDisconnect(this);
    });
  }

  serves(origin: string, addresses: readonly string[]): boolean {
    return this.connected && this.origin === origin && this.address !== null && addresses.includes(this.address);
  }
}
