import { EventEmitter } from 'node:events';
import { RequestTimeoutError } from './errors.js';

/**
 * One clock for one request (docs/gateway.md#size-caps-and-timeouts). It aborts with
 * `RequestTimeoutError` when the time is up, or with the caller's own reason when the caller's
 * signal fires first; undici then fails the request (or destroys the body mid-read) with that
 * reason. `end()` must be called when the request is over, whatever the outcome, so no timer or
 * listener outlives it.
 *
 * The deadline is itself the `signal` undici is given: undici takes an EventEmitter that emits
 * `abort` and carries `aborted` and `reason` as well as an AbortSignal. An emitter costs a fraction
 * of a microsecond; on Node 20 an AbortSignal costs several microseconds to create and to listen
 * to, on every request, for a signal that almost never fires.
 */
export class Deadline extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly caller: AbortSignal | undefined;
  private readonly onCallerAbort = (): void => this.abort(this.caller?.reason);

  constructor(host: string, timeoutMs: number, caller: AbortSignal | undefined) {
    super();
    this.caller = caller;
    this.timer = setTimeout(() => this.abort(new RequestTimeoutError(host, timeoutMs)), timeoutMs);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Runs `listener` once when the deadline aborts; returns what removes it. */
  onAbort(listener: () => void): () => void {
    this.once('abort', listener);
    return () => this.removeListener('abort', listener);
  }

  /** Settles like `promise`, or rejects with the abort reason if the deadline passes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.aborted) {
      promise.catch(() => undefined);
      return Promise.reject(this.reason as Error);
    }
    return new Promise<T>((resolve, reject) => {
      const stopListening = this.onAbort(() => reject(this.reason as Error));
      promise.then(
        (value) => {
          stopListening();
          resolve(value);
        },
        (error: unknown) => {
          stopListening();
          reject(error as Error);
        },
      );
    });
  }

  end(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}
