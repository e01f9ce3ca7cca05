import type { GatewayCategory } from '../policy/network-policy.js';

/**
 * The gateway's refusals. Each is thrown before the refused thing happens: an invalid URL or a
 * policy violation before any network I/O, an oversize response as soon as the limit is passed.
 */
export class GatewayError extends Error {
  override name = 'GatewayError';
}

/** The URL is unusable: too long, not http(s), no host, or credentials in it (docs/gateway.md#url-rules). */
export class InvalidUrlError extends GatewayError {
  override name = 'InvalidUrlError';
}

export type PolicyStage = 'host' | 'rest' | 'address';

/** The destination is not permitted by network policy or a REST rule; nothing was sent. */
export class PolicyViolationError extends GatewayError {
  override name = 'PolicyViolationError';

  constructor(
    readonly host: string,
    readonly category: GatewayCategory,
    readonly stage: PolicyStage,
    readonly rule: string | null,
    readonly reason: string,
  ) {
    super(`network policy denied the request: ${reason}`);
  }
}

/** The response declared or delivered more bytes than the client's `maxResponseBytes`. */
export class ResponseTooLargeError extends GatewayError {
  override name = 'ResponseTooLargeError';

  constructor(
    readonly limit: number,
    /** The Content-Length the server declared, when that is what gave it away. */
    readonly declared: number | null,
  ) {
    super(
      declared === null
        ? `response body exceeds the limit of ${limit} bytes`
        : `response declares ${declared} bytes, over the limit of ${limit} bytes`,
    );
  }
}

/**
 * The request did not finish within its timeout. The timeout is one deadline for the whole
 * request — DNS, waiting for a pooled connection, connecting, headers and the entire body — so a
 * server that trickles bytes cannot keep a request (and its connection) alive past it.
 */
export class RequestTimeoutError extends GatewayError {
  override name = 'RequestTimeoutError';

  constructor(
    readonly host: string,
    readonly timeoutMs: number,
  ) {
    super(`request to ${host} did not complete within ${timeoutMs} ms`);
  }
}
