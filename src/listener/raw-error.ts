import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { SECURITY_HEADERS } from './headers.js';

/** What the raw answer needs of an error: the shape of the HTTP error catalogue's `ApiError`. */
export interface RawError {
  statusCode: number;
  code: string;
  message: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * The error envelope as raw HTTP/1.1 bytes, with the security headers, for sockets whose request
 * Node could not parse (or hands over without a response object, such as CONNECT). Shared by the
 * REST listener and the webhook channel. The answer to a HEAD request has the head only: a client
 * reads no body after it, so the envelope's bytes would look like garbage after the response and
 * it would report a broken connection instead of the refusal.
 */
export function rawErrorResponse(error: RawError, options: { head?: boolean } = {}): string {
  const status = error.statusCode;
  const body = JSON.stringify({ status: 'error', error: error.message, code: error.code });
  const headers = { ...SECURITY_HEADERS, ...error.headers };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\n${lines}` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${options.head === true ? '' : body}`
  );
}

/** What Node's parser tells a 'clientError' listener about the bytes it refused. */
export interface ParserError {
  rawPacket?: Buffer;
  bytesParsed?: number;
}

/** A method token and a space at the start of a line: the start of a request line (header lines have a colon). */
const REQUEST_START = /(?:^|\n)([!#$%&'*+.^_`|~0-9A-Za-z-]+) /g;

/**
 * Whether the refused request is a HEAD: the last request line that starts before the point where
 * parsing stopped (the packet can also hold earlier, pipelined requests; the refused line may be
 * that request line itself, a bad URL). False when its method is not in the packet.
 */
export function refusedHead(error: ParserError): boolean {
  if (!error.rawPacket) return false;
  const parsed = error.rawPacket.subarray(0, Math.min(error.bytesParsed ?? 0, 65_536)).toString('latin1');
  return [...parsed.matchAll(REQUEST_START)].at(-1)?.[1] === 'HEAD';
}

/**
 * How long a socket answered with raw bytes may stay half-closed: long enough for the client to
 * read the answer and close its side (so no reset destroys the answer in flight), short enough
 * that a client which never closes cannot hold the socket.
 */
const LINGER_MS = 2000;

/** Sockets answered by `answerAndClose`: their answer is out, the connection is closing. */
const answered = new WeakSet<Socket>();

/**
 * Whether the socket had its raw answer. The rest of a refused request that keeps arriving makes
 * Node's parser report an error for each piece; answered by destroying the socket, that would
 * reset the connection under a client still uploading, and it would lose the answer.
 */
export function answeredAndClosing(socket: Socket): boolean {
  return answered.has(socket);
}

/** Send `response` and close the socket; destroyed after a short linger at the latest. */
export function answerAndClose(socket: Socket, response: string): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(response);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
