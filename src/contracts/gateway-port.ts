import { InvalidUrlError, PolicyViolationError, RequestTimeoutError, ResponseTooLargeError } from '../gateway/errors.js';
import type { GatewayCategory } from '../policy/network-policy.js';

/*
 * What the providers and tools need from the outbound gateway. Declared structurally here, apart
 * from both, so that either can be built and tested against the gateway without knowing how
 * policy is loaded, and neither has to import the other for it; the app passes its `Gateway`'s
 * `clientFactory`, whose clients share one connection pool.
 */

export interface GatewayClientOptions {
  /** Recorded on the gateway's audit events; null when the call belongs to no session or run. */
  sessionId: string | null;
  taskId: string | null;
  /** The HTTP request the call was made for, recorded on the gateway's audit events. */
  requestId?: string;
  timeout: number;
  category: GatewayCategory;
  maxResponseBytes?: number;
}

export interface GatewayResponseLike {
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The gateway reads the body (bounded) before returning, so these may be synchronous. */
  text(): string | Promise<string>;
  bytes(): Uint8Array | Promise<Uint8Array>;
}

export interface GatewayRequestOptionsLike {
  headers?: Record<string, string>;
  timeout?: number;
  signal?: AbortSignal;
}

export interface GatewayClientLike {
  /** WHATWG-compatible fetch for SDKs; every call is policy-checked and audited by the gateway. */
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  get(url: string, options?: GatewayRequestOptionsLike): Promise<GatewayResponseLike>;
  close(): void | Promise<void>;
}

export type GatewayClientFactory = (options: GatewayClientOptions) => GatewayClientLike;

/** Reads one header from either a `Headers` object or a plain record (case-insensitive). */
export function headerValue(headers: GatewayResponseLike['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

export type GatewayErrorKind = 'policy' | 'too_large' | 'invalid_url' | 'timeout';

function kindOf(error: Error): GatewayErrorKind | null {
  if (error instanceof PolicyViolationError) return 'policy';
  if (error instanceof ResponseTooLargeError) return 'too_large';
  if (error instanceof InvalidUrlError) return 'invalid_url';
  if (error instanceof RequestTimeoutError) return 'timeout';
  return null;
}

/**
 * Finds a gateway error in `err` or its `cause` chain. SDKs wrap whatever their fetch throws (the
 * OpenAI and Anthropic SDKs raise APIConnectionError with the original as `cause`), so a policy
 * denial has to be dug out to be reported as one.
 */
export function findGatewayError(err: unknown): { kind: GatewayErrorKind; error: Error; reason: string } | null {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const kind = kindOf(current);
    if (kind) return { kind, error: current, reason: reasonOf(current) };
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** A policy denial carries a `reason` ("host x:443 is not allowed for category tool"); else the message. */
function reasonOf(error: Error): string {
  const reason = (error as { reason?: unknown }).reason;
  return typeof reason === 'string' && reason ? reason : error.message;
}
