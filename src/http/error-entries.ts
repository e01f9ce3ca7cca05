import { ApiError, type ErrorCode } from '../listener/errors.js';

/** A domain error class; its subclasses are answered as it is. */
export type ErrorClass<E extends Error = Error> = abstract new (...args: never[]) => E;

/** How one domain error class reaches a client: the catalogue error it is answered with. */
export interface ErrorEntry {
  readonly type: ErrorClass;
  /** The catalogue error for `error`, or null when it is not of this entry's class. */
  answer(error: unknown): ApiError | null;
}

export function errorEntry<E extends Error>(type: ErrorClass<E>, answer: (error: E) => ApiError): ErrorEntry {
  return { type, answer: (error) => (error instanceof type ? answer(error) : null) };
}

/**
 * A domain error that carries a `code` of its own: each code's catalogue code, its message kept
 * (written for the operator). The table is a `Record` over the codes, so a code added to the domain
 * error without a catalogue code does not compile.
 */
export function codedErrors<C extends string>(type: ErrorClass<Error & { readonly code: C }>, codes: Record<C, ErrorCode>): ErrorEntry {
  return errorEntry(type, (error) => new ApiError(codes[error.code], error.message));
}
