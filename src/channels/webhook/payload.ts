import { isUtf8 } from 'node:buffer';
import { ApiError, invalidField, payloadTooLarge } from '../../listener/errors.js';
import { MAX_PROMPT_CHARS } from './limits.js';
import { NUL_REFUSED } from '../../security/input/nul.js';
import { sanitizeSender } from './sender.js';

export type PayloadResult =
  | { ok: true; prompt: string; sender: string }
  | { ok: false; error: ApiError };

/** A leading UTF-8 byte order mark is dropped, as a UTF-8 decoder does by default. */
const BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * The body rules (docs/webhook.md#body): a JSON object with a non-empty string `prompt` (at most 32,000
 * characters) and an optional string `sender`. A prompt of only whitespace counts as empty: it
 * gives the agent nothing to do. Error messages never echo the body.
 */
export function parsePayload(body: Buffer): PayloadResult {
  // Checked first, so invalid UTF-8 is refused instead of being turned into U+FFFD and queued as
  // if valid; checking and then decoding costs less than TextDecoder's fatal mode.
  if (!isUtf8(body)) return refused(new ApiError('AGENTD_BAD_REQUEST', 'Request body is not valid UTF-8'));
  const bom = body[0] === BOM[0] && body[1] === BOM[1] && body[2] === BOM[2];
  const text = body.toString('utf8', bom ? BOM.length : 0);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refused(new ApiError('AGENTD_BAD_REQUEST', 'Request body is not valid JSON'));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return invalid('Request body must be a JSON object');
  }
  const { prompt, sender } = value as { prompt?: unknown; sender?: unknown };
  if (prompt === undefined) return invalid('field "prompt" is required');
  if (typeof prompt !== 'string') return invalid('field "prompt" must be a string');
  if (prompt.trim() === '') return invalid('field "prompt" must not be empty');
  // PostgreSQL cannot store it; refused on every backend alike (security/input/nul.ts).
  if (prompt.includes('\u0000')) return invalid(`field "prompt" ${NUL_REFUSED}`);
  // Code points never outnumber UTF-16 units, so the count is only needed for long prompts.
  if (prompt.length > MAX_PROMPT_CHARS && charCount(prompt) > MAX_PROMPT_CHARS) {
    return refused(payloadTooLarge(`field "prompt" is longer than ${MAX_PROMPT_CHARS} characters`));
  }
  if (sender !== undefined && sender !== null && typeof sender !== 'string') {
    return invalid('field "sender" must be a string');
  }
  return { ok: true, prompt, sender: sanitizeSender(sender ?? undefined) };
}

function refused(error: ApiError): PayloadResult {
  return { ok: false, error };
}

const invalid = (message: string) => refused(invalidField(message));

/** Length in code points: an astral character (emoji) counts once, as a reader would count it. */
export function charCount(text: string): number {
  // Most prompts hold no surrogate at all: one native scan says so, and the length is the count.
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

const SURROGATE = /[\ud800-\udfff]/;
