import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';
import { driveLoad, type Acknowledged, type Target } from './load.js';

export const API_KEY = 'crash-test-api-key-0123456789';
export const SECRET = 'crash-test-webhook-secret';

export interface CrashConfigOptions {
  /** Default: high enough never to limit the load. */
  rateLimitRpm?: number;
  /** The webhook's per-client limit; default: the service's own. */
  webhookRateLimitRpm?: number;
  /** More top-level YAML lines (sections other than `api` and `webhook`). */
  extra?: string[];
}

export function writeCrashConfig(home: string, options: CrashConfigOptions = {}): void {
  writeFileSync(join(home, 'config.yaml'), [
    // Port 0 for both listeners: each restart takes a free port (the load follows the printed URLs),
    // so the test never depends on 8080 being free. Behind a (pretend) proxy, so the load can spread
    // over many client addresses and measure the intake rather than the per-IP rate limit.
    'api:', `  api_key: ${API_KEY}`, '  port: 0', `  rate_limit_rpm: ${options.rateLimitRpm ?? 1_000_000}`, '  trust_proxy: true',
    'webhook:', '  enabled: true', '  port: 0', `  secret: ${SECRET}`, '  trust_proxy: true',
    ...(options.webhookRateLimitRpm === undefined ? [] : [`  rate_limit_rpm: ${options.webhookRateLimitRpm}`]),
    ...(options.extra ?? []), '',
  ].join('\n'), { mode: 0o600 });
}

export interface Served {
  child: ChildProcess;
  target: Target;
  exited: Promise<number | null>;
  output(): string;
}

/** `agentd serve` on the home, resolved once both the API and the webhook listener are up; `env` adds variables. */
export async function serve(home: string, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--home', home], { env: { PATH: process.env.PATH ?? '', HOME: home, ...env } });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const target = await new Promise<Target>((resolve, reject) => {
    const scan = (chunk: Buffer) => {
      output += chunk.toString();
      const api = /agentd listening on (http:\/\/\S+)/.exec(output)?.[1];
      const webhook = /webhook channel listening on (http:\/\/[^\s;]+)/.exec(output)?.[1];
      if (api && webhook) resolve({ api, webhook, apiKey: API_KEY, secret: SECRET });
    };
    child.stdout.on('data', scan);
    child.stderr.on('data', scan);
    void exited.then((code) => reject(new Error(`agentd serve exited ${code} before it was ready:\n${output}`)));
  });
  return { child, target, exited, output: () => output };
}

/** One cycle: serve, load for `loadMs`, then SIGKILL in the middle of it. */
export async function crashCycle(home: string, acked: Acknowledged, loadMs: number): Promise<void> {
  const served = await serve(home);
  const controller = new AbortController();
  const load = driveLoad(served.target, acked, controller.signal);
  await new Promise((resolve) => setTimeout(resolve, loadMs));
  served.child.kill('SIGKILL');
  await served.exited;
  controller.abort();
  await load;
}

/** `agentd audit verify` on the home: exit status and what it printed. */
export function verifyAudit(home: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--home', home], { env: { PATH: process.env.PATH ?? '', HOME: home } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
