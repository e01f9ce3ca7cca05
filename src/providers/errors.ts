/**
 * Errors of the provider layer. Each message says what to do about it, because it reaches the
 * operator verbatim (a 400 on chat/runs, a diagnostics check, a `run.error` event). None ever
 * contains an API key: upstream messages pass through `scrubSecrets` first.
 */
export class UnknownProviderError extends Error {
  override readonly name = 'UnknownProviderError';
  readonly statusCode = 400;
  constructor(
    readonly provider: string,
    known: readonly string[],
  ) {
    super(`unknown provider '${provider}': known providers are ${known.join(', ')}`);
  }
}

export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
  readonly statusCode = 400;
  constructor(
    readonly provider: string,
    reason: string,
  ) {
    super(`provider '${provider}' is not available: ${reason}`);
  }
}

/** Why an upstream call failed; lets callers tell a policy denial from an outage or a bad key. */
export type ProviderFailureKind =
  | 'policy'
  | 'auth'
  | 'rate_limit'
  | 'upstream'
  | 'connection'
  | 'timeout'
  | 'cancelled'
  | 'invalid_request'
  | 'invalid_response';

export class ProviderRequestError extends Error {
  override readonly name = 'ProviderRequestError';
  constructor(
    readonly provider: string,
    readonly kind: ProviderFailureKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
