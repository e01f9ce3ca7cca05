import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a piece of work belongs to, carried through its async continuations: the HTTP
 * layer enters it once per request, and the audit log and the logger read it, so an event or a
 * log line names its request without every call site passing the id along.
 */
const requestContext = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it starts) as part of the request `requestId`. */
export function runInRequest<T>(requestId: string, fn: () => T): T {
  return requestContext.run(requestId, fn);
}

/** The id of the request the current code runs for, or undefined outside a request. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore();
}
