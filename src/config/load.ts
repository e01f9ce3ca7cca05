import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { z } from 'zod';
import { randomToken } from '../security/tokens.js';
import { ConfigError } from './errors.js';
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
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Write a config with a fresh key when none exists (the `serve` first-run behaviour). */
  bootstrap?: boolean;
}

export function resolveHome(home: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(home ?? env.AGENTD_HOME ?? join(homedir(), '.agentd'));
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

export function ensureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
}

export function writeConfigFile(path: string, config: ConfigInput): void {
  const text = `# agentd configuration. Unknown keys are refused at start-up.\n${stringifyYaml(config)}`;
  writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const home = resolveHome(options.home, env);
  const configPath = resolve(options.configPath ?? join(home, 'config.yaml'));
  let bootstrapKey: string | null = null;

  if (!existsSync(configPath)) {
    if (!options.bootstrap) throw new ConfigError(`config file ${configPath} does not exist (run "agentd init")`);
    ensureHome(home);
    bootstrapKey = randomToken(32);
    writeConfigFile(configPath, bootstrapConfig(bootstrapKey));
  }

  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(configPath, 'utf8'));
  } catch (err) {
    throw new ConfigError(`config file ${configPath} is not valid YAML: ${(err as Error).message}`);
  }
  const config = parseConfig(raw);
  const envKey = env.SERVICE_API_KEY;
  const apiKeyFromEnv = envKey !== undefined && envKey !== '';
  if (apiKeyFromEnv) config.api.api_key = envKey;
  return { config, home, configPath, bootstrapKey, apiKeyFromEnv };
}
