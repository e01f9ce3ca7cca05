import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';

/** One generated request, concrete: what goes on the wire, headers in order (duplicates kept). */
export interface WireRequest {
  method: string;
  /** Request target as sent: path and query, already encoded (or deliberately not). */
  target: string;
  /** Name/value pairs in order; nothing is added but the framing of `body` Node chooses when no Content-Length is given. */
  headers: [string, string][];
  body: Buffer | null;
}

export interface WireResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", " as Node does. */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
}

const lastExchange = new WeakMap<Socket, string>();

/** Refusal of the invariant "every request gets a whole response in time, on a connection that stays up until then". */
export class NoResponseError extends Error {}

/**
 * Sends `req` over `agent` (keep-alive: one connection carries many requests, as clients do) and
 * resolves with the whole response. Rejects with NoResponseError when the response is not complete
 * within `deadlineMs` or the connection ends before it is.
 */
export function send(base: URL, req: WireRequest, agent: Agent, deadlineMs: number): Promise<WireResponse> {
  const started = performance.now();
  let previous = '';
  let connection: Socket | undefined;
  return new Promise((resolve, reject) => {
    const outgoing = request({
      host: base.hostname,
      port: Number(base.port),
      method: req.method,
      path: req.target,
      headers: req.headers.flat(),
      agent,
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new NoResponseError(`no complete response within ${deadlineMs} ms${previous}`));
    }, deadlineMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(new NoResponseError(`connection ended without a complete response: ${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}${previous}`));
    };
    outgoing.on('error', fail);
    // A reused connection's failure may be the previous exchange's doing: name it.
    outgoing.on('socket', (socket: Socket) => {
      connection = socket;
      const last = lastExchange.get(socket);
      previous = last ? ` (previous request on this connection: ${last})` : ' (a new connection)';
    });
    outgoing.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('aborted', () => fail(new Error('response aborted')));
      res.on('end', () => {
        clearTimeout(timer);
        if (!res.complete) return fail(new Error('response incomplete'));
        if (connection) lastExchange.set(connection, `${req.method} ${req.target.slice(0, 200)} [${req.headers.map(([n, v]) => `${n}: ${v.slice(0, 60)}`).join(' | ')}] body ${req.body?.length ?? 0} B → ${res.statusCode} connection: ${res.headers.connection}`);
        resolve({ status: res.statusCode ?? 0, headers: res.headers as WireResponse['headers'], body: Buffer.concat(chunks), ms: performance.now() - started });
      });
    });
    outgoing.end(req.body ?? undefined);
  });
}
