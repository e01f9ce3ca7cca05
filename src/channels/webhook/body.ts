import type { IncomingMessage } from 'node:http';
import type { Deadlines } from './deadlines.js';

export type BodyResult =
  | { kind: 'body'; bytes: Buffer }
  /** The client did not send the declared bytes within the time allowed. */
  | { kind: 'timeout' }
  /** The connection ended or failed before the declared bytes arrived. */
  | { kind: 'aborted' }
  /** More bytes than declared (Node's parser prevents it; checked so memory stays bounded). */
  | { kind: 'overflow' };

/**
 * Read exactly `length` bytes (already checked against the size limit): memory per request is
 * bounded by the declared length, never by what arrives. The deadline covers the whole body, not
 * the gap between chunks, so a client trickling a byte at a time (slow loris) is cut off like one
 * that sends nothing. Bytes arriving after the outcome is settled are dropped. `done` is called
 * once, with the outcome (a callback, not a Promise: on the accepted path the Promise and the
 * turn its await took were a measurable share of a request).
 */
export function readBody(req: IncomingMessage, length: number, deadlines: Deadlines, done: (result: BodyResult) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const finish = (result: BodyResult) => {
    if (settled) return;
    settled = true;
    deadlines.delete(deadline);
    done(result);
  };
  const deadline = deadlines.add(() => finish({ kind: 'timeout' }));

  req.on('data', (chunk: Buffer) => {
    if (settled) return;
    received += chunk.length;
    if (received > length) return finish({ kind: 'overflow' });
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (received !== length) return finish({ kind: 'aborted' });
    // A small body usually arrives as one chunk: hand it over without a copy.
    finish({ kind: 'body', bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length) });
  });
  req.on('close', () => finish({ kind: 'aborted' }));
}
