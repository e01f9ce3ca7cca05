import type { ServerResponse } from 'node:http';
import { errorBody } from '../../listener/envelope.js';
import type { ApiError } from '../../listener/errors.js';
import { SECURITY_HEADERS } from '../../listener/headers.js';

const JSON_TYPE = 'application/json; charset=utf-8';
// A string, not a Buffer: Node then sends status line, headers and body in one write instead of a
// writev of two chunks, which was the largest single cost of the accepted path under load.
const QUEUED_BODY = '{"status":"queued"}';
// Built once: the accepted path is the hot one and its headers never change.
const QUEUED_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...SECURITY_HEADERS,
  'content-type': JSON_TYPE,
  'content-length': String(Buffer.byteLength(QUEUED_BODY)),
});

export function sendQueued(res: ServerResponse): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(202, QUEUED_HEADERS);
  res.end(QUEUED_BODY);
}

/**
 * The error envelope with the security headers. `close` asks Node to close the connection after
 * the answer: used when the body was never read (it is still on the socket, and reading up to
 * 1 MiB that nobody wants is what the early refusal avoids) and after a body timeout.
 */
export function sendError(res: ServerResponse, error: ApiError, close = false): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(errorBody(error));
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    ...error.headers,
  };
  if (close) headers.connection = 'close';
  res.writeHead(error.statusCode, headers);
  res.end(body);
}

