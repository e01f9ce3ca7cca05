import { isAbsoluteUrl, redactUrl } from './redact-url.js';
import { censor, REDACTED } from './secrets.js';

const SENSITIVE_KEYS = [
  'apikey', 'password', 'passwd', 'secret', 'clientsecret', 'token', 'accesstoken', 'refreshtoken',
  'authorization', 'cookie', 'csrftoken', 'privatekey',
];

/**
 * Keys are compared case- and `-`/`_`-insensitively, and also match as a suffix (`github_token`).
 * Token *counts* such as `prompt_tokens` are not secrets: only string values under a sensitive key
 * are replaced, numbers and booleans always pass through.
 */
export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  return SENSITIVE_KEYS.some((s) => k === s || k.endsWith(s));
}

const MAX_DEPTH = 20;

/**
 * Deep copy of `value` with sensitive keys and detected secrets replaced by `[REDACTED]`; a string
 * that is a URL loses its credentials and query values, as the gateway's own events show URLs
 * (a tool argument such as `https://host/x?api_key=…` is as secret as a header).
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return isAbsoluteUrl(value) ? censor(redactUrl(value)) : censor(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  // Built with `Object.fromEntries`, which defines each key as an own property: assigning
  // `out['__proto__'] = …` would set the prototype instead, and a tool call's `__proto__`
  // argument would vanish from the audit record.
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, v]) => [
    key,
    isSensitiveKey(key) && v !== null && typeof v !== 'number' && typeof v !== 'boolean' ? REDACTED : redact(v, depth + 1),
  ]));
}
