import type { Readable } from 'node:stream';
import { ResponseTooLargeError } from './errors.js';

/**
 * Step 5 of the request flow, on the actual bytes: the count is kept as chunks arrive and the
 * stream is destroyed on the chunk that passes the limit, so memory never holds more than the
 * limit (plus that one chunk) no matter what the server declared.
 */

export const DEFAULT_MAX_RESPONSE_BYTES = 50 * 1024 * 1024;

/** The declared size when it alone proves the body is too large (the cheap check, before reading). */
export function declaredOverLimit(contentLength: string | string[] | undefined, limit: number): number | null {
  const value = Array.isArray(contentLength) ? contentLength[0] : contentLength;
  if (value === undefined || !/^\d+$/.test(value)) return null;
  const declared = Number(value);
  return declared > limit ? declared : null;
}

/** Read the whole body into one buffer, refusing it as soon as it passes `limit` bytes. */
export function readBounded(body: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        body.destroy(new ResponseTooLargeError(limit, null));
        return;
      }
      chunks.push(chunk);
    });
    body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    body.once('error', reject);
  });
}

/**
 * The body as a WHATWG stream for `client.fetch`, so SDKs can consume server-sent events as they
 * arrive. Pull-based: a chunk is read from the socket only when the consumer asks for one.
 */
export function boundedWebStream(
  body: Readable,
  limit: number,
  onTooLarge: (error: ResponseTooLargeError) => Promise<void>,
): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) {
          controller.close();
          return;
        }
        size += next.value.length;
        if (size > limit) {
          const error = new ResponseTooLargeError(limit, null);
          body.destroy(error);
          await onTooLarge(error);
          controller.error(error);
          return;
        }
        controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel() {
      body.destroy();
    },
  });
}
