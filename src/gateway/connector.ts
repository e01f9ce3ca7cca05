import { buildConnector } from 'undici';
import { GatewayError } from './errors.js';

/**
 * DNS-rebinding protection at the socket level. The policy resolved the host once and checked
 * every address; a pooled connection is created with those addresses and dials them only. The
 * connector never resolves a name, so no second DNS answer can move a connection. The URL's host
 * stays everywhere else: undici derives the Host header and the TLS servername (SNI and the
 * certificate check) from the origin, not from the address we dial.
 */

/** Errors after which the next checked address is worth a try (the host may be multi-homed). */
const TRY_NEXT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

export type Connect = buildConnector.connector;

/**
 * A connect function bound to checked addresses. Once one of them answered, that address is the
 * connection's for good: `onConnected` reports it (the pool reuses the connection only for requests
 * whose own check admitted it), and a reconnect goes back to it and nowhere else.
 */
export function pinnedConnector(checked: readonly string[], connectTimeoutMs: number, onConnected?: (address: string) => void): Connect {
  // `rejectUnauthorized: true` is stated rather than inherited: TLS verification is not negotiable.
  const dial = buildConnector({ timeout: connectTimeoutMs, rejectUnauthorized: true });
  let addresses = checked;
  return (options, callback) => {
    if (addresses.length === 0) {
      callback(new GatewayError(`no checked address for ${options.hostname}; refusing to connect`), null);
      return;
    }
    const attempt = (index: number): void => {
      const address = addresses[index]!;
      dial({ ...options, hostname: address }, (error, socket) => {
        const code = (error as NodeJS.ErrnoException | null)?.code;
        if (error && index + 1 < addresses.length && code !== undefined && TRY_NEXT.has(code)) {
          attempt(index + 1);
          return;
        }
        if (error) {
          callback(error, null);
          return;
        }
        addresses = [address];
        onConnected?.(address);
        callback(null, socket!);
      });
    };
    attempt(0);
  };
}
