import { Agent, WebSocket } from 'undici';
import type { GatewayCategory } from '../policy/network-policy.js';
import { evaluateDestination, type DestinationDecision } from '../policy/destination.js';
import { hostOf } from '../policy/host.js';
import { GatewayAudit } from './audit.js';
import type { GatewayParts } from './client.js';
import { pinnedConnector } from './connector.js';
import { GatewayError, InvalidUrlError, PolicyViolationError } from './errors.js';
import { targetUrl } from './url.js';

/**
 * WebSocket connections under the network policy (docs/gateway.md#websocket-connections). The same
 * steps as a request: the URL is checked, then the host against the policy for the caller's
 * category, then the resolved addresses; only then is a socket opened, pinned to those addresses
 * with TLS verified (the connector of the pool). A refusal sends no byte. The handshake is audited
 * like a request (`network_request` with status 101, `network_denied`, `network_error`).
 */

export interface WebSocketOptions {
  category: GatewayCategory;
  /** Milliseconds for DNS, connecting and the handshake; default 30 s. */
  timeout?: number;
  /** Text messages longer than this (in UTF-16 units) close the socket with 1009; default 4 MiB. */
  maxMessageLength?: number;
  onMessage(text: string): void;
  /** Once, when the socket closed after it had opened (either side, or the connection broke). */
  onClose(code: number, reason: string): void;
}

/** An open socket; `close` codes are 1000 or 3000–4999, as the WebSocket API allows. */
export interface GatewaySocket {
  send(text: string): void;
  close(code: number, reason?: string): void;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_MESSAGE_LENGTH = 4 * 1024 * 1024;
/** Reported (never sent: the API sends only 1000 and 3000–4999) for a message over the limit or in binary. */
const MESSAGE_TOO_BIG = 1009;

/** `ws:`/`wss:` as the `http:`/`https:` URL the policy and the connector understand. */
function httpUrlOf(input: string | URL): URL {
  const text = typeof input === 'string' ? input : input.href;
  const match = /^(wss?):/i.exec(text);
  if (!match) throw new InvalidUrlError('a WebSocket URL must start with ws: or wss:');
  return targetUrl(`${match[1]!.toLowerCase() === 'wss' ? 'https' : 'http'}${text.slice(match[1]!.length)}`);
}

export async function openWebSocket(parts: GatewayParts, input: string | URL, options: WebSocketOptions): Promise<GatewaySocket> {
  const audit = new GatewayAudit(parts, { category: options.category, sessionId: null, taskId: null, requestId: undefined });
  let url: URL;
  try {
    url = httpUrlOf(input);
  } catch (error) {
    await audit.denied({ method: 'GET', url: String(input), host: null, stage: 'url', rule: null, reason: (error as Error).message });
    throw error;
  }
  const timeoutMs = options.timeout ?? DEFAULT_TIMEOUT_MS;
  let decision: DestinationDecision;
  try {
    decision = await evaluateDestination(parts.policy, { url, method: 'GET', category: options.category }, { resolver: parts.resolver });
  } catch (error) {
    await audit.failed('GET', url, error);
    throw error;
  }
  if (!decision.allowed) {
    await audit.denied({ method: 'GET', url, host: decision.host, stage: decision.stage, rule: decision.rule, reason: decision.reason });
    throw new PolicyViolationError(decision.host, options.category, decision.stage, decision.rule, decision.reason);
  }
  // One dispatcher per socket: it dials only the checked addresses and is gone with the socket.
  const dispatcher = new Agent({ connections: 1, connect: pinnedConnector(decision.addresses, timeoutMs) });
  const wsUrl = new URL(url.href);
  wsUrl.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(wsUrl.href, { dispatcher });
  const maxLength = options.maxMessageLength ?? DEFAULT_MAX_MESSAGE_LENGTH;
  // Messages can arrive before the caller has the socket (the server speaks first): they wait
  // here and are handed over on the next turn of the event loop, after the caller's `await`.
  let pending: string[] | null = [];
  let closed = false;
  const ended = (code: number, reason: string): void => {
    if (closed) return;
    closed = true;
    options.onClose(code, reason);
  };
  socket.addEventListener('message', (event) => {
    if (closed) return;
    if (typeof event.data !== 'string' || event.data.length > maxLength) {
      // Reported as "too big" (or unsupported) here; the code sent keeps a session resumable.
      ended(MESSAGE_TOO_BIG, typeof event.data === 'string' ? 'message too big' : 'binary message');
      socket.close(4000, 'unacceptable message');
      return;
    }
    if (pending) pending.push(event.data);
    else options.onMessage(event.data);
  });
  try {
    await handshake(socket, timeoutMs, hostOf(url));
  } catch (error) {
    closed = true;
    void dispatcher.destroy().catch(() => undefined);
    await audit.failed('GET', url, error);
    throw error;
  }
  let closedEarly: { code: number; reason: string } | null = null;
  socket.addEventListener('close', (event) => {
    void dispatcher.destroy().catch(() => undefined);
    if (pending) closedEarly = { code: event.code, reason: event.reason };
    else ended(event.code, event.reason);
  });
  audit.completed('GET', url, 101, false);
  setImmediate(() => {
    const early = pending ?? [];
    pending = null;
    for (const text of early) if (!closed) options.onMessage(text);
    if (closedEarly) ended(closedEarly.code, closedEarly.reason);
  });
  return {
    send: (text) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(text);
    },
    close: (code, reason) => {
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(code, reason);
    },
  };
}

/** Resolves once the socket is open; rejects when it closed or failed first, or at the timeout. */
function handshake(socket: WebSocket, timeoutMs: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new GatewayError(`WebSocket to ${host} did not open within ${timeoutMs} ms`));
    }, timeoutMs);
    const settle = (error: Error | null): void => {
      clearTimeout(timer);
      socket.removeEventListener('open', onOpen);
      socket.removeEventListener('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onOpen = (): void => settle(null);
    // The error event says nothing useful; the close event that follows carries the code.
    const onClose = (event: { code: number }): void => settle(new GatewayError(`WebSocket to ${host} closed before it opened (code ${event.code})`));
    socket.addEventListener('open', onOpen);
    socket.addEventListener('close', onClose);
    socket.addEventListener('error', () => undefined);
  });
}
