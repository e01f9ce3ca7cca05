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
  let known = keyVerdicts.get(key);
  if (known === undefined) {
    const k = key.toLowerCase().replace(/[-_]/g, '');
    known = SENSITIVE_KEYS.some((s) => k === s || k.endsWith(s));
    // The keys seen are mostly the same few dozen, every event; a flood of new ones starts it over,
    // and a long one (a client's own key) is not kept at all, so what is kept stays small.
    if (keyVerdicts.size >= MAX_KEY_VERDICTS) keyVerdicts.clear();
    if (key.length <= MAX_KEPT_KEY_LENGTH) keyVerdicts.set(key, known);
  }
  return known;
}

const keyVerdicts = new Map<string, boolean>();
const MAX_KEY_VERDICTS = 1_000;
const MAX_KEPT_KEY_LENGTH = 64;

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
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    const copy = isSensitiveKey(key) && v !== null && typeof v !== 'number' && typeof v !== 'boolean' ? REDACTED : redact(v, depth + 1);
    // Assigning `out['__proto__'] = …` would set the prototype instead, and a tool call's
    // `__proto__` argument would vanish from the audit record: that key is defined as an own property.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out;
}
