import { redactUrlsIn } from '../security/secrets/redact-url.js';
import { censor } from '../security/secrets/secrets.js';

/** Characters of a tool's result kept in its run's trace (docs/resources.md#run-trace). */
export const RESULT_PREVIEW_CHARS = 2_000;
/** Characters of a failed tool's error kept in its run's trace. */
export const ERROR_PREVIEW_CHARS = 500;

export interface TextPreview {
  text: string;
  truncated: boolean;
}

/**
 * The start of a tool's output as the audit log shows values: detected secrets censored and every
 * URL without its credentials and query values (a fetched page's output repeats the URL, query
 * included). Redacted as a whole first (a secret cut in two by the bound would no longer be
 * recognised), then cut to `max` characters.
 */
export function previewOf(output: string, max: number): TextPreview {
  const redacted = censor(redactUrlsIn(output));
  return redacted.length > max ? { text: redacted.slice(0, max), truncated: true } : { text: redacted, truncated: false };
}
