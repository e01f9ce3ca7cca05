import { censor, REDACTED } from '../security/secrets/secrets.js';
import { ProviderRequestError } from './errors.js';
import { findGatewayError } from '../contracts/gateway-port.js';

/** Removes the key itself and anything that looks like a credential from upstream text. */
export function scrubSecrets(text: string, apiKey: string | null): string {
  let out = text;
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join(REDACTED);
  return censor(out);
}

interface SdkErrorShape {
  name?: string;
  status?: unknown;
  message?: string;
  error?: { message?: unknown; error?: { message?: unknown } };
  cause?: unknown;
}

function upstreamMessage(err: SdkErrorShape): string {
  const body = err.error;
  const nested = body?.error?.message ?? body?.message;
  return typeof nested === 'string' && nested ? nested : (err.message ?? 'request failed');
}

/**
 * Turns whatever an SDK call threw into a `ProviderRequestError` with an operator-readable message.
 * Both SDKs wrap fetch failures in APIConnectionError, which would hide a policy denial behind
 * "Connection error."; the gateway error is dug out of the cause chain and named as such.
 */
export function toProviderError(
  provider: string,
  err: unknown,
  context: { host: string; apiKey: string | null; keyEnv: string | null; signal: AbortSignal },
): ProviderRequestError {
  if (err instanceof ProviderRequestError) return err;
  const scrub = (text: string) => scrubSecrets(text, context.apiKey);
  if (context.signal.aborted) return new ProviderRequestError(provider, 'cancelled', `provider '${provider}' request was cancelled`);

  const gateway = findGatewayError(err);
  if (gateway?.kind === 'policy') {
    return new ProviderRequestError(
      provider,
      'policy',
      `provider '${provider}' request to ${context.host} was blocked by network policy (${scrub(gateway.reason)}); ` +
        'allow the host with network.presets or network.provider_allowed_hosts',
    );
  }
  if (gateway?.kind === 'timeout') {
    return new ProviderRequestError(provider, 'timeout', `provider '${provider}' did not answer in time (${context.host})`);
  }
  if (gateway) {
    return new ProviderRequestError(provider, 'invalid_response', `provider '${provider}' request to ${context.host} failed: ${scrub(gateway.error.message)}`);
  }

  const e = (err ?? {}) as SdkErrorShape;
  const status = typeof e.status === 'number' ? e.status : undefined;
  if (status !== undefined) {
    const detail = scrub(upstreamMessage(e));
    if (status === 401 || status === 403) {
      const fix = context.keyEnv ? `check the key in ${context.keyEnv}` : 'check the server configuration';
      return new ProviderRequestError(provider, 'auth', `provider '${provider}' rejected the credentials (HTTP ${status}): ${detail}; ${fix}`, status);
    }
    if (status === 429) {
      return new ProviderRequestError(provider, 'rate_limit', `provider '${provider}' is rate limiting requests (HTTP 429): ${detail}`, status);
    }
    return new ProviderRequestError(provider, 'upstream', `provider '${provider}' answered HTTP ${status}: ${detail}`, status);
  }
  const name = e.name ?? '';
  const network = networkCause(err);
  if (network) {
    return new ProviderRequestError(provider, 'connection', `provider '${provider}' could not reach ${context.host}: ${network}`);
  }
  if (/Timeout/i.test(name)) {
    return new ProviderRequestError(provider, 'timeout', `provider '${provider}' did not answer in time (${context.host})`);
  }
  if (name === 'APIConnectionError') {
    const cause = e.cause instanceof Error ? `: ${scrub(e.cause.message)}` : '';
    return new ProviderRequestError(provider, 'connection', `provider '${provider}' could not reach ${context.host}${cause}`);
  }
  return new ProviderRequestError(provider, 'upstream', `provider '${provider}' request failed: ${scrub(e.message ?? String(err))}`);
}

const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed',
};

/**
 * The network cause of a failed call, named by its class (connection refused, TLS, …) and code,
 * from the error codes in the cause chain (the SDKs wrap them in a generic "Connection error.").
 */
function networkCause(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NETWORK_CAUSES[code]) return `${NETWORK_CAUSES[code]} (${code})`;
      if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `TLS error (${code})`;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
