import type { Config } from '../../config/schema.js';

/** A secret the service holds, and the name it is shown under when masked. */
export interface KnownSecret {
  /** Where it comes from: `api.api_key`, `env ANTHROPIC_API_KEY`, … (never the value). */
  name: string;
  value: string;
}

/**
 * Values shorter than this are not masked: a configured value such as `1` or `true` (an MCP
 * server's `env_allow` may pass any variable) would otherwise blank ordinary text; a secret that
 * short is guessable anyway.
 */
export const MIN_MASKED_LENGTH = 8;

/**
 * The secrets the service knows by value, from its loaded configuration and environment: the API
 * key, the webhook secret, the approval hash key, passwords in the storage URLs, and the values of
 * every environment variable the config names (`*_env` keys such as `providers.*.api_key_env`,
 * MCP servers' `env_allow`). Unlike the pattern-based censor, it catches a secret of any shape, so
 * text that is otherwise shown exactly (an approval's request) can still hide exactly these.
 */
export class KnownSecrets {
  private readonly pattern: RegExp | null;
  private readonly names = new Map<string, string>();

  constructor(secrets: readonly KnownSecret[]) {
    const variants: string[] = [];
    for (const { name, value } of secrets) {
      if (value.length < MIN_MASKED_LENGTH) continue;
      // Also as it appears percent-encoded in a URL (a key with `/` or `+` in a query string).
      for (const variant of new Set([value, encodeURIComponent(value)])) {
        if (this.names.has(variant)) continue;
        this.names.set(variant, name);
        variants.push(variant);
      }
    }
    // Longest first: a secret that contains another is masked whole.
    variants.sort((a, b) => b.length - a.length);
    this.pattern = variants.length === 0 ? null : new RegExp(variants.map(escapeRegExp).join('|'), 'g');
  }

  static fromConfig(config: Config, env: NodeJS.ProcessEnv, extra: readonly KnownSecret[] = []): KnownSecrets {
    const secrets: KnownSecret[] = [
      { name: 'api.api_key', value: config.api.api_key },
      { name: 'webhook.secret', value: config.webhook.secret },
      { name: 'approval_hash_key', value: config.approval_hash_key },
      ...urlPasswords('storage.postgres_url', config.storage.postgres_url),
      ...urlPasswords('storage.redis_url', config.storage.redis_url),
      ...extra,
    ];
    for (const variable of namedVariables(config)) {
      const value = env[variable];
      if (typeof value === 'string') secrets.push({ name: `env ${variable}`, value }, { name: `env ${variable}`, value: value.trim() });
    }
    return new KnownSecrets(secrets);
  }

  /** `text` with every known secret replaced by `[MASKED: <where it comes from>]`. */
  mask(text: string): string {
    if (this.pattern === null) return text;
    return text.replace(this.pattern, (found) => `[MASKED: ${this.names.get(found) ?? 'secret'}]`);
  }
}

/** Environment variables the config names: every `*_env` string and every MCP server's `env_allow`. */
function namedVariables(config: Config): Set<string> {
  const names = new Set<string>();
  const walk = (value: unknown, depth: number): void => {
    if (depth > 16 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key.endsWith('_env') && typeof item === 'string' && item !== '') names.add(item);
      else walk(item, depth + 1);
    }
  };
  walk(config, 0);
  for (const server of config.mcp.servers) for (const name of server.env_allow) names.add(name);
  return names;
}

function urlPasswords(name: string, url: string | null): KnownSecret[] {
  if (url === null) return [];
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return [];
    return [{ name, value: parsed.password }, { name, value: decodeURIComponent(parsed.password) }];
  } catch {
    return [];
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
