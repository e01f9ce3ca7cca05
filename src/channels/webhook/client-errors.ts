import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { clientIp } from '../../security/client-ip.js';
import type { WebhookAudit } from './audit.js';
import { rawErrorResponse } from './respond.js';

/**
 * How long a socket answered with raw bytes may stay half-closed: long enough for the client to
 * read the answer and close its side (so no reset destroys the answer in flight), short enough
 * that a client which never closes cannot hold the socket.
 */
const LINGER_MS = 2000;

interface ClientErrorDeps {
  audit: WebhookAudit;
  inflight: WeakMap<Socket, ServerResponse>;
}

/**
 * Requests Node cannot parse (bad Content-Length, smuggling-shaped headers, a body cut short, a
 * header or request timeout) never reach the request handler. They still get the error envelope
 * with the security headers, unless the client has gone.
 */
export function createClientErrorHandler(deps: ClientErrorDeps) {
  return function onClientError(error: Error & { code?: string }, socket: Duplex): void {
    const tcp = socket as Socket;
    if (error.code === 'ECONNRESET' || tcp.destroyed || !tcp.writable) return void tcp.destroy();
    const [status, reason] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT'
        ? [408, 'Request timed out']
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'Request headers too large']
          : error.code === 'HPE_INVALID_EOF_STATE'
            ? [400, 'Request body shorter than Content-Length']
            : [400, 'Malformed HTTP request'];
    const answer = () => {
      if (!tcp.writable) return void tcp.destroy();
      deps.audit.rejected(clientIp(tcp.remoteAddress, undefined, false), status, reason);
      answerAndClose(tcp, rawErrorResponse(status, reason));
    };

    const current = deps.inflight.get(tcp);
    if (current === undefined || current.writableFinished) return answer();
    if (current.req.complete) {
      // A complete earlier request on this connection (pipelined) is still being answered: its
      // answer goes out first, then this one, and the connection closes.
      current.once('finish', answer);
      return;
    }
    // The request in flight is the broken one (its body was cut short): answer it here, unless
    // its answer has already started.
    if (current.headersSent) return void tcp.destroy();
    answer();
  };
}

/** CONNECT is a well-formed request for a method we do not serve: 405 like any other. */
export function createConnectHandler(deps: { audit: WebhookAudit }) {
  return function onConnect(_req: IncomingMessage, socket: Duplex): void {
    const tcp = socket as Socket;
    tcp.on('error', () => {});
    deps.audit.rejected(clientIp(tcp.remoteAddress, undefined, false), 405, 'Method not allowed');
    answerAndClose(tcp, rawErrorResponse(405, 'Method not allowed', { allow: 'POST' }));
  };
}

function answerAndClose(socket: Socket, response: string): void {
  socket.end(response);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
