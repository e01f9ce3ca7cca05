import { canonicalJson, sha256Hex as sha256 } from '../security/canonical-json.js';
import { redact } from '../security/redact.js';
import { redactUrl } from '../security/redact-url.js';
import { censor } from '../security/secrets.js';

/** The request an approval is about: what the operator reads, and the digest the decision is bound to. */
export interface ExactRequest {
  /** Shown to the operator (and stored, audited): credentials and query values never appear in it. */
  text: string;
  /** SHA-256 (hex) of the exact request, secrets included: another request never matches it. */
  hash: string;
  /** What `allow_session` remembers: the host, or the tool name. */
  scope: string;
}

/** A gateway request: method and normalised URL (no credentials, no fragment). */
export function networkRequest(method: string, url: URL, host: string): ExactRequest {
  const normalised = new URL(url.href);
  normalised.username = '';
  normalised.password = '';
  normalised.hash = '';
  const verb = method.toUpperCase();
  return { text: `${verb} ${redactUrl(normalised)}`, hash: sha256(`${verb} ${normalised.href}`), scope: host };
}

/**
 * A tool call: the tool's name and its arguments as canonical JSON. The text hides what the run's
 * `tool.request` event hides (sensitive keys such as `password`, detected secrets).
 */
export function toolRequest(tool: string, args: Record<string, unknown>): ExactRequest {
  return { text: censor(`${tool} ${canonicalJson(redact(args))}`), hash: sha256(`${tool} ${canonicalJson(args)}`), scope: tool };
}
