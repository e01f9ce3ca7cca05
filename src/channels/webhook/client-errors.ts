import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { clientIp } from '../../listener/client-ip.js';
import type { WebhookAudit } from './audit.js';
import { ApiError } from '../../listener/errors.js';
import { answerAndClose, answeredAndClosing, rawErrorResponse, refusedHead, type ParserError } from '../../listener/raw-error.js';

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
    if (answeredAndClosing(tcp)) return;
    if (error.code === 'ECONNRESET' || tcp.destroyed || !tcp.writable) return void tcp.destroy();
    const refusal = describe(error.code, failedLine(error as ParserError));
    const answer = () => {
      if (!tcp.writable) return void tcp.destroy();
      deps.audit.rejected(clientIp(tcp.remoteAddress, undefined, false), refusal);
      answerAndClose(tcp, rawErrorResponse(refusal, { head: refusedHead(error as ParserError) }));
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

/**
 * The line the parser failed in: the packet can also hold earlier, pipelined requests, so the
 * line is found around the offset where parsing stopped.
 */
function failedLine(error: ParserError): string {
  if (!error.rawPacket) return '';
  const text = error.rawPacket.subarray(0, 65_536).toString('latin1');
  const at = Math.min(error.bytesParsed ?? 0, text.length);
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const end = text.indexOf('\n', at);
  return text.slice(start, end === -1 ? text.length : end + 1);
}

/** `METHOD target HTTP/x.y`: a well-formed request line, whatever the method token. */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/\d\.\d\r?\n/;

/**
 * Status and message for a request Node's parser refused. A well-formed request line whose method
 * the parser does not know is still "a method other than POST": 405 with Allow, like GET or CONNECT.
 */
function describe(code: string | undefined, line: string): ApiError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ApiError('AGENTD_REQUEST_TIMEOUT');
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('AGENTD_HEADERS_TOO_LARGE');
    case 'HPE_INVALID_EOF_STATE':
      return new ApiError('AGENTD_BAD_REQUEST', 'Request body shorter than Content-Length');
    case 'HPE_INVALID_METHOD':
      return REQUEST_LINE.test(line) ? postOnly() : malformed();
    default:
      return malformed();
  }
}

const malformed = () => new ApiError('AGENTD_BAD_REQUEST', 'Malformed HTTP request');
const postOnly = () => new ApiError('AGENTD_METHOD_NOT_ALLOWED', undefined, { allow: 'POST' });

/** CONNECT is a well-formed request for a method we do not serve: 405 like any other. */
export function createConnectHandler(deps: { audit: WebhookAudit }) {
  return function onConnect(_req: IncomingMessage, socket: Duplex): void {
    const tcp = socket as Socket;
    tcp.on('error', () => {});
    const refusal = postOnly();
    deps.audit.rejected(clientIp(tcp.remoteAddress, undefined, false), refusal);
    answerAndClose(tcp, rawErrorResponse(refusal));
  };
}

