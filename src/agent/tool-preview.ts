import { redact } from '../security/secrets/redact.js';

/** Characters of a tool's result kept in its run's trace (docs/resources.md#run-trace). */
export const RESULT_PREVIEW_CHARS = 2_000;
/** Characters of a failed tool's error kept in its run's trace. */
export const ERROR_PREVIEW_CHARS = 500;

export interface TextPreview {
  text: string;
  truncated: boolean;
}

/**
 * The start of a tool's output as the audit log would show it: redacted as a whole first (a secret
 * cut in two by the bound would no longer be recognised), then cut to `max` characters.
 */
export function previewOf(output: string, max: number): TextPreview {
  const redacted = redact(output) as string;
  return redacted.length > max ? { text: redacted.slice(0, max), truncated: true } : { text: redacted, truncated: false };
}
