import { ConfigError } from '../config/errors.js';
import type { RestPolicyConfig } from '../config/schema.js';
import { fnmatchToRegExp } from './fnmatch.js';
import { parseRuleHost } from './host.js';

/**
 * REST rules (`network.rest_policies`): per host, an ordered list of {method, path glob, action}.
 * They only narrow or confirm what the network policy already allowed; the first rule whose method
 * and path match decides, and with no match the network result stands.
 */

export interface RestRule {
  host: string;
  /** Upper case, or `*`. */
  method: string;
  path: string;
  action: 'allow' | 'deny';
  /** e.g. `network.rest_policies[3]`, for audit events and errors. */
  rule: string;
  regex: RegExp;
}

export interface RestVerdict {
  action: 'allow' | 'deny';
  rule: string;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** RFC 3986 §5.2.4: resolve `.` and `..` segments. */
function removeDotSegments(path: string): string {
  const output: string[] = [];
  const segments = path.split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..' && output.length > 1) output.pop();
      // A trailing `.` or `..` still denotes a directory: keep the slash.
      if (last) output.push('');
      continue;
    }
    output.push(segment);
  }
  const joined = output.join('/');
  return joined.startsWith('/') ? joined : `/${joined}`;
}

/**
 * The path a server will act on, in one canonical spelling: percent-encoded unreserved characters
 * decoded (`%61` → `a`, `%2e` → `.`), other escapes upper-cased, then dot segments resolved. Done
 * in that order so that `/repos/%2e%2e/admin` is judged as `/admin`, the path it really reaches.
 */
export function normalizePath(pathname: string): string {
  const decoded = pathname.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : `%${hex.toUpperCase()}`;
  });
  return removeDotSegments(decoded === '' ? '/' : decoded);
}

/** What WHATWG URL parsing percent-encodes in a path (besides non-ASCII): such characters never reach a rule raw. */
const PATH_ENCODED = /[\u0000-\u0020"#<>`{}\u007f]/;

/**
 * A path glob in the spelling `normalizePath` gives request paths, so a rule written the way a
 * person reads the path (`/files/ü*`, `/my docs/*`, `/%7euser/*`) matches: characters a URL would
 * encode are percent-encoded as UTF-8, escapes normalised. Glob syntax (`*`, `?`, `[...]`) is kept;
 * a character class must hold plain path characters, since one encoded character is several bytes.
 */
export function normalizePattern(pattern: string, key: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '[') {
      const close = pattern.indexOf(']', i + (pattern[i + 1] === '!' ? 3 : 2));
      if (close !== -1) {
        const body = pattern.slice(i, close + 1);
        if (/[^\u0021-\u007e]|["#<>`{}%]/.test(body)) {
          throw new ConfigError(`${key}: the character class ${JSON.stringify(body)} may hold only plain ASCII path characters`);
        }
        out += body;
        i = close;
        continue;
      }
    }
    const escape = /^%([0-9A-Fa-f]{2})/.exec(pattern.slice(i));
    if (escape) {
      const decoded = String.fromCharCode(parseInt(escape[1]!, 16));
      out += UNRESERVED.test(decoded) ? decoded : `%${escape[1]!.toUpperCase()}`;
      i += 2;
    } else if (c.charCodeAt(0) > 0x7e || PATH_ENCODED.test(c)) {
      const char = String.fromCodePoint(pattern.codePointAt(i)!);
      out += [...Buffer.from(char, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
      i += char.length - 1;
    } else {
      out += c;
    }
  }
  return out;
}

export class RestRules {
  private readonly byHost = new Map<string, RestRule[]>();

  constructor(rules: readonly RestRule[]) {
    for (const rule of rules) {
      const list = this.byHost.get(rule.host) ?? [];
      list.push(rule);
      this.byHost.set(rule.host, list);
    }
  }

  static fromConfig(configs: readonly RestPolicyConfig[], key = 'network.rest_policies'): RestRules {
    return new RestRules(configs.map((config, i) => compileRule(config, `${key}[${i}]`)));
  }

  get size(): number {
    let n = 0;
    for (const list of this.byHost.values()) n += list.length;
    return n;
  }

  /** The first matching rule's verdict; `null` when the host has no rules or none matches. */
  evaluate(host: string, method: string, pathname: string): RestVerdict | null {
    const rules = this.byHost.get(host);
    if (!rules) return null;
    const path = normalizePath(pathname);
    const upper = method.toUpperCase();
    for (const rule of rules) {
      if ((rule.method === '*' || rule.method === upper) && rule.regex.test(path)) {
        return { action: rule.action, rule: rule.rule };
      }
    }
    return null;
  }
}

function compileRule(config: RestPolicyConfig, rule: string): RestRule {
  const raw = config as Partial<Record<keyof RestPolicyConfig, unknown>>;
  if (typeof raw.host !== 'string') throw new ConfigError(`${rule}.host: required string`);
  if (typeof raw.method !== 'string' || !/^(\*|[A-Za-z]+)$/.test(raw.method)) {
    throw new ConfigError(`${rule}.method: ${JSON.stringify(raw.method)} is not an HTTP method or *`);
  }
  if (typeof raw.path !== 'string' || !/^[/*]/.test(raw.path)) {
    throw new ConfigError(`${rule}.path: ${JSON.stringify(raw.path)} must be a glob starting with / or *`);
  }
  if (raw.action !== 'allow' && raw.action !== 'deny') {
    throw new ConfigError(`${rule}.action: ${JSON.stringify(raw.action)} must be allow or deny`);
  }
  return {
    host: parseRuleHost(raw.host, `${rule}.host`),
    method: raw.method.toUpperCase(),
    path: raw.path,
    action: raw.action,
    rule,
    regex: fnmatchToRegExp(normalizePattern(raw.path, `${rule}.path`)),
  };
}
