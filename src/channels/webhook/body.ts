import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { kind: 'body'; bytes: Buffer }
  /** The client did not send the declared bytes within the time allowed. */
  | { kind: 'timeout' }
  /** The connection ended or failed before the declared bytes arrived. */
  | { kind: 'aborted' }
  /** More bytes than declared (Node's parser prevents it; checked so the buffer can never overrun). */
  | { kind: 'overflow' };

/**
 * Read exactly `length` bytes (already checked against the size limit) into one buffer allocated
 * up front, so memory per request is bounded by the declared length, never by what arrives. The
 * timer covers the whole body, not the gap between chunks: a client trickling one byte a second
 * (slow loris) is cut off like one that sends nothing.
 */
export function readBody(req: IncomingMessage, length: number, timeoutMs: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const buffer = Buffer.allocUnsafe(length);
    let received = 0;
    let settled = false;

    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > length) return finish({ kind: 'overflow' });
      chunk.copy(buffer, received);
      received += chunk.length;
    };
    // allocUnsafe is only handed out once every byte of it has been overwritten by the body.
    const onEnd = () => finish(received === length ? { kind: 'body', bytes: buffer } : { kind: 'aborted' });
    const onClose = () => finish({ kind: 'aborted' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);

    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}
