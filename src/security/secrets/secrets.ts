/**
 * Secret detector and censor. Each pattern is anchored on word boundaries (or a distinctive prefix)
 * so that ordinary prose such as "task-based" or "skeleton" is never mistaken for a key.
 */
export const REDACTED = '[REDACTED]';

interface SecretPattern {
  name: string;
  regex: RegExp;
  /** Index of the capture group holding the secret; 0 = the whole match. */
  group?: number;
}

const PATTERNS: SecretPattern[] = [
  { name: 'pem_private_key', regex: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)/g },
  { name: 'anthropic_key', regex: /\bsk-ant-[A-Za-z0-9_-]{10,}/g },
  { name: 'openai_key', regex: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'aws_access_key', regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  { name: 'aws_secret_key', regex: /\baws_?secret_?access_?key\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b/gi, group: 1 },
  { name: 'google_api_key', regex: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: 'github_token', regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { name: 'gitlab_token', regex: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { name: 'npm_token', regex: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'slack_token', regex: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { name: 'stripe_key', regex: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{20,}\b/g },
  { name: 'jwt', regex: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { name: 'bearer_credential', regex: /\b(?:Bearer|Token)\s+([A-Za-z0-9._~+/=-]{16,})/g, group: 1 },
  { name: 'basic_credential', regex: /\bBasic\s+([A-Za-z0-9+/]{12,}={0,2})/g, group: 1 },
  { name: 'url_credentials', regex: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:([^\s@/]+)@/gi, group: 1 },
  {
    name: 'assigned_secret',
    regex: /\b(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key)\s*[:=]\s*["']?([^\s"'&,;]{4,})/gi,
    group: 1,
  },
];

export interface SecretMatch {
  name: string;
  start: number;
  end: number;
}

/**
 * One case-insensitive alternation of every pattern: it matches whenever any pattern could, so
 * text it rejects (nearly all text) skips the per-pattern passes. Audit details and replies are
 * censored on hot paths; this keeps the common case to a single scan.
 */
const ANY_SECRET = new RegExp(PATTERNS.map((p) => `(?:${p.regex.source})`).join('|'), 'i');

/** Every secret found in `text`, as non-overlapping ranges sorted by position. */
export function detectSecrets(text: string): SecretMatch[] {
  if (!ANY_SECRET.test(text)) return [];
  const found: SecretMatch[] = [];
  for (const pattern of PATTERNS) {
    pattern.regex.lastIndex = 0;
    for (const m of text.matchAll(pattern.regex)) {
      const group = pattern.group ?? 0;
      const value = m[group];
      if (!value) continue;
      const start = (m.index ?? 0) + (group === 0 ? 0 : m[0].indexOf(value));
      found.push({ name: pattern.name, start, end: start + value.length });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretMatch[] = [];
  for (const match of found) {
    const last = merged[merged.length - 1];
    if (last && match.start < last.end) {
      last.end = Math.max(last.end, match.end);
    } else {
      merged.push({ ...match });
    }
  }
  return merged;
}

/** `text` with every detected secret replaced by `[REDACTED]`. */
export function censor(text: string): string {
  const matches = detectSecrets(text);
  if (matches.length === 0) return text;
  let out = '';
  let pos = 0;
  for (const m of matches) {
    out += text.slice(pos, m.start) + REDACTED;
    pos = m.end;
  }
  return out + text.slice(pos);
}
