import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type * as z from 'zod';
import { randomToken } from '../security/ids/tokens.js';
import { ConfigError } from './errors.js';
import { homeFile } from './home-layout.js';
import { configSchema, type Config, type ConfigInput } from './schema.js';

export interface LoadedConfig {
  config: Config;
  home: string;
  configPath: string;
  /** Set when this start wrote a fresh config file (first run): the generated key, shown once. */
  bootstrapKey: string | null;
  /** The API key came from SERVICE_API_KEY rather than the file. */
  apiKeyFromEnv: boolean;
}

export interface LoadOptions {
  home?: string;
  /** An explicit config file (`--config`): it must exist, it is never written. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Write a config with a fresh key when none exists (the `serve` first-run behaviour). */
  bootstrap?: boolean;
}

export function resolveHome(home: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(home ?? env.AGENTD_HOME ?? join(homedir(), '.agentd'));
}

/**
 * DATABASE_URL and REDIS_URL stand in for `storage.postgres_url` and `storage.redis_url` (as
 * SERVICE_API_KEY does for the key): the usual way to hand a container its credentials without
 * writing them into a file. Applied before validation, so a malformed one is refused like a
 * malformed file value.
 */
export function applyStorageEnv(raw: unknown, env: NodeJS.ProcessEnv): unknown {
  const fromEnv: Record<string, string> = {};
  if (env.DATABASE_URL) fromEnv.postgres_url = env.DATABASE_URL;
  if (env.REDIS_URL) fromEnv.redis_url = env.REDIS_URL;
  if (Object.keys(fromEnv).length === 0) return raw;
  // An empty file (null) is an empty config; anything else that is not a mapping is left for the schema to refuse.
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) return raw;
  const file = (raw ?? {}) as Record<string, unknown>;
  const storage = file.storage !== null && typeof file.storage === 'object' ? file.storage : {};
  return { ...file, storage: { ...storage, ...fromEnv } };
}

/** Validate an already-parsed config object; errors name the key path and the expected form. */
export function parseConfig(raw: unknown): Config {
  const result = configSchema.safeParse(raw ?? {});
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues));
  return result.data;
}

function formatIssues(issues: z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => (path ? `${path}.${k}` : k));
      return `unknown config key ${keys.map((k) => `"${k}"`).join(', ')}`;
    }
    return `config key "${path || '(root)'}": ${issue.message}`;
  });
  return `Invalid configuration: ${lines.join('; ')}`;
}

/** The config file written on first run: every section present so the operator sees what exists. */
export function bootstrapConfig(apiKey: string): ConfigInput {
  const defaults = parseConfig({});
  return { ...defaults, api: { ...defaults.api, api_key: apiKey } };
}

const HOME_FIX = 'pass --home (or set AGENTD_HOME) to a folder you can write';

/**
 * What is wrong with `home` as a home folder, in one sentence with the fix, or null when it is a
 * writable folder (or does not exist yet and could be created). `read`: only reading is needed
 * (`agentd doctor`), so a read-only home (a snapshot, a backup mount) is fine.
 */
export function homeProblem(home: string, needs: 'write' | 'read' = 'write'): string | null {
  let stat;
  try {
    stat = statSync(home);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      const blocker = fileAncestor(home);
      return blocker === null ? null : `cannot use ${home} as the home folder: ${blocker} is a file, not a folder; ${HOME_FIX}`;
    }
    if (code === 'ENOTDIR') {
      return `cannot use ${home} as the home folder: ${fileAncestor(home) ?? 'a parent'} is a file, not a folder; ${HOME_FIX}`;
    }
    return `cannot use ${home} as the home folder (${describeErrno(error)}); ${HOME_FIX}`;
  }
  if (!stat.isDirectory()) return `cannot use ${home} as the home folder: it is a file, not a folder; ${HOME_FIX}`;
  try {
    accessSync(home, needs === 'write' ? constants.W_OK | constants.X_OK : constants.R_OK | constants.X_OK);
  } catch (error) {
    if (needs === 'read') return `cannot read the home folder ${home} (${describeErrno(error)}); give your user read access to it or pass --home`;
    if ((error as NodeJS.ErrnoException).code === 'EROFS') return `cannot write to the home folder ${home}: it is on a read-only file system; ${HOME_FIX}`;
    return `cannot write to the home folder ${home}: give your user write access to it (chown or chmod) or ${HOME_FIX}`;
  }
  return null;
}

/** The nearest ancestor of `path` that exists and is not a folder. */
function fileAncestor(path: string): string | null {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return statSync(dir).isDirectory() ? null : dir;
    } catch {
      // keep climbing
    }
  }
  return null;
}

function describeErrno(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return e.code ?? e.message;
  }
}

/** Creates the home folder (mode 0700) or refuses, naming the path and the fix. */
export function ensureHome(home: string): void {
  const problem = homeProblem(home);
  if (problem) throw new ConfigError(problem);
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    chmodSync(home, 0o700);
  } catch (error) {
    throw new ConfigError(homeProblem(home) ?? `cannot create the home folder ${home} (${describeErrno(error)}); ${HOME_FIX}`);
  }
}

export function writeConfigFile(path: string, config: ConfigInput): void {
  const text = `# agentd configuration. Unknown keys are refused at start-up.\n${stringifyYaml(config)}`;
  writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const home = resolveHome(options.home, env);
  const configPath = resolve(options.configPath ?? homeFile(home, 'config'));
  let bootstrapKey: string | null = null;

  if (!existsSync(configPath)) {
    if (options.configPath !== undefined) {
      throw new ConfigError(
        `config file ${configPath} (given with --config) does not exist; create it with "agentd init --config ${configPath}" or leave out --config to use ${homeFile(home, 'config')}`,
      );
    }
    if (!options.bootstrap) throw new ConfigError(`config file ${configPath} does not exist; run "agentd init" (or "agentd serve", which writes one)`);
    ensureHome(home);
    bootstrapKey = randomToken(32);
    try {
      writeConfigFile(configPath, bootstrapConfig(bootstrapKey));
    } catch (error) {
      throw new ConfigError(`cannot write the config file ${configPath} (${describeErrno(error)}); ${HOME_FIX}`);
    }
  }

  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const fix = code === 'EISDIR' ? 'point --config at a file' : 'give your user read access to it';
    throw new ConfigError(`cannot read the config file ${configPath} (${code === 'EISDIR' ? 'it is a folder' : describeErrno(error)}); ${fix}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config file ${configPath} is not valid YAML: ${(err as Error).message}`);
  }
  const config = parseConfig(applyStorageEnv(raw, env));
  if (config.storage.backend === 'postgres' && config.storage.postgres_url === null) {
    throw new ConfigError('config key "storage.backend" is postgres but no PostgreSQL URL is set: set storage.postgres_url or DATABASE_URL');
  }
  const envKey = env.SERVICE_API_KEY;
  const apiKeyFromEnv = envKey !== undefined && envKey !== '';
  if (apiKeyFromEnv) config.api.api_key = envKey;
  return { config, home, configPath, bootstrapKey, apiKeyFromEnv };
}
