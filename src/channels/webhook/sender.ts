import { MAX_SENDER_CHARS } from './limits.js';

export const DEFAULT_SENDER = 'webhook';

/**
 * Characters a sender may keep. "Alphanumerics" is read as ASCII letters and digits: the sender
 * ends up in the audit log, in operator views and in the agent's context, and Unicode letters
 * bring look-alikes ("аdmin" with a Cyrillic а), invisible and bidirectional controls with them.
 */
const DISALLOWED = /[^A-Za-z0-9\-_. @]/g;

/**
 * The sender rule, in its order (docs/webhook.md#body): cap at 64 characters first, then strip every
 * character outside the allowed set, and fall back to `webhook` when nothing is left. The cap
 * counts code points, so a cut never splits a surrogate pair.
 */
export function sanitizeSender(raw: string | undefined): string {
  if (raw === undefined) return DEFAULT_SENDER;
  let capped = '';
  let chars = 0;
  for (const ch of raw) {
    if (chars === MAX_SENDER_CHARS) break;
    capped += ch;
    chars++;
  }
  const cleaned = capped.replace(DISALLOWED, '');
  return cleaned === '' ? DEFAULT_SENDER : cleaned;
}
