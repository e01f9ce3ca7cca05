import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How much of a refused request's body is read and thrown away before its connection closes, and
 * for how long: enough for a client still uploading a body of a few MiB to finish and read the
 * answer, bounded so that a client cannot make either listener read without end.
 */
const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
const DRAIN_MS = 2000;

/**
 * Calls `then` once the request's body has arrived and been discarded (at once when it has none or
 * was read). A connection closed while body bytes are still arriving is reset by the kernel, and a
 * client that sends its whole body before reading loses the answer (EPIPE / ECONNRESET) instead
 * of reading the refusal; reading the rest first avoids that. A body declared larger than the
 * bound, or one that takes longer, is not waited for.
 */
export function afterBodyDrained(req: IncomingMessage, then: () => void): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (req.complete || req.readableEnded || (!chunked && !(declared > 0)) || declared > DRAIN_MAX_BYTES) return then();
  let done = false;
  let read = 0;
  const finish = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off('data', count);
    then();
  };
  const count = (chunk: Buffer): void => {
    read += chunk.length;
    if (read > DRAIN_MAX_BYTES) finish();
  };
  const timer = setTimeout(finish, DRAIN_MS);
  req.on('data', count);
  req.once('end', finish);
  req.once('close', finish);
  req.resume();
}

/**
 * For an answer that will close the connection (the client asked for it, or an upgrade it cannot
 * have): the response's end waits for the request body to be drained (`afterBodyDrained`).
 */
export function drainBeforeClosing(req: IncomingMessage, res: ServerResponse): void {
  const end = res.end;
  res.end = function drainedEnd(this: ServerResponse, ...args: unknown[]) {
    afterBodyDrained(req, () => (end as (...a: unknown[]) => void).apply(this, args));
    return this;
  } as ServerResponse['end'];
}

/** Whether the answer to `req` closes its connection because of what the client asked. */
export function clientAskedToClose(req: IncomingMessage): boolean {
  const connection = req.headers.connection;
  return req.headers.upgrade !== undefined || (connection !== undefined && /(^|,)\s*close\s*(,|$)/i.test(connection));
}
