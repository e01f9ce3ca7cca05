import { RequestTimeoutError } from './errors.js';

/**
 * One clock for one request. Its signal aborts with `RequestTimeoutError` when the time is up, or
 * with the caller's own reason when the caller's signal fires first; undici then fails the request
 * (or destroys the body mid-read) with that reason. `end()` must be called when the request is
 * over, whatever the outcome, so no timer or listener outlives it.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly caller: AbortSignal | undefined;
  private readonly onCallerAbort = (): void => this.controller.abort(this.caller?.reason);

  constructor(host: string, timeoutMs: number, caller: AbortSignal | undefined) {
    this.caller = caller;
    this.timer = setTimeout(() => this.controller.abort(new RequestTimeoutError(host, timeoutMs)), timeoutMs);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Settles like `promise`, or rejects with the abort reason if the deadline passes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.controller.signal;
    if (signal.aborted) {
      promise.catch(() => undefined);
      return Promise.reject(signal.reason as Error);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error as Error);
        },
      );
    });
  }

  end(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}
