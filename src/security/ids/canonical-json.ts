import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal values always give equal text (and digests). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of UTF-8 text, as lowercase hex. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');
