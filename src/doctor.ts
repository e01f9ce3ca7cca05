import { existsSync, readFileSync } from 'node:fs';
import { serviceTools } from './app/gateway.js';
import { ConfigError } from './config/errors.js';
import { homeFile } from './config/home-layout.js';
import { homeProblem, loadConfig, resolveHome, type LoadedConfig } from './config/load.js';
import { diagnose, type Check, type DiagnosticsReport } from './diagnostics/index.js';
import { storedDiagnosticsParts } from './diagnostics/collect.js';
import { buildReport } from './diagnostics/report.js';
import { SECTION_KEYS } from './diagnostics/types.js';
import { createClient } from './gateway/index.js';
import { NetworkPolicy } from './policy/index.js';
import { jobSummary, MAX_JOBS } from './scheduler/index.js';
import { createProviderRegistry, type GatewayClientFactory } from './providers/index.js';
import type { Storage } from './storage/ports/storage.js';
import { storageBackend } from './storage/registry.js';
import { createMemoryLogger } from './log.js';

export interface DoctorResult {
  report: DiagnosticsReport;
  /** `live`: the running service's own report; `offline`: checked from the files alone. */
  source: 'live' | 'offline';
  /** The live service's URL, or why the report is offline. */
  detail: string;
}

export interface DoctorOptions {
  home?: string;
  config?: string;
  env?: NodeJS.ProcessEnv;
  /** How long the running service may take to answer (default 5 s). */
  timeoutMs?: number;
}

/**
 * The doctor report: the running service's own (`GET /api/v1/diagnostics`, so bind address,
 * uptime and sessions are live) when one runs on this home and answers, else the same checks
 * from the files without starting anything. A home or config that cannot be used is reported as
 * failed checks, not thrown.
 */
export async function doctorReport(options: DoctorOptions): Promise<DoctorResult> {
  const env = options.env ?? process.env;
  const home = resolveHome(options.home, env);
  // The doctor only reads: a read-only home (a snapshot, a backup mount) is checked like any other.
  const homeError = homeProblem(home, 'read');
  if (homeError) return unusable([check('home', 'error', homeError)], home);
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig({ home: options.home, configPath: options.config, env });
    NetworkPolicy.fromConfig(loaded.config.network); // invalid policy entries are config errors
  } catch (error) {
    if (error instanceof ConfigError) return unusable([check('config_file', 'error', error.message)], home);
    throw error;
  }

  const service = runningService(home);
  let why = `no service is running on ${home}`;
  if (service) {
    const live = await askService(service.url, loaded.config.api.api_key, options.timeoutMs ?? 5000);
    if (typeof live !== 'string') return { report: live, source: 'live', detail: service.url };
    why = `the service at ${service.url} (pid ${service.pid}) did not answer: ${live}`;
  }
  return { report: await offlineReport(loaded, env), source: 'offline', detail: why };
}

const check = (name: string, status: Check['status'], summary: string): Check => ({ name, status, summary });

function unusable(problems: Check[], home: string): DoctorResult {
  const skipped = [check('not_checked', 'warn', 'not checked: the home folder or the config file cannot be used')];
  const sections = Object.fromEntries(SECTION_KEYS.map((key) => [key, key === 'runtime' ? problems : skipped]));
  return { report: buildReport(sections), source: 'offline', detail: `the home folder ${home} or its config cannot be used` };
}

/** The pid in the home's lock when that process is alive, and the URL it wrote when listening. */
function runningService(home: string): { pid: number; url: string } | null {
  const lock = homeFile(home, 'lock');
  const urlFile = homeFile(home, 'url');
  if (!existsSync(lock) || !existsSync(urlFile)) return null;
  try {
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
    process.kill(pid, 0);
    const url = readFileSync(urlFile, 'utf8').trim();
    return /^http:\/\/\S+$/.test(url) ? { pid, url } : null;
  } catch {
    // No such process (a stale lock), or another user's: nothing this user can ask.
    return null;
  }
}

/** The live report, or why there is none. Sent through the gateway, allowed to this one address only. */
async function askService(serviceUrl: string, apiKey: string, timeoutMs: number): Promise<DiagnosticsReport | string> {
  let target: URL;
  try {
    target = new URL('/api/v1/diagnostics', serviceUrl);
  } catch {
    return `${serviceUrl} is not a URL`;
  }
  // A service bound to every address is asked on loopback.
  if (target.hostname === '0.0.0.0') target.hostname = '127.0.0.1';
  if (target.hostname === '[::]') target.hostname = '[::1]';
  const client = createClient({
    category: 'tool',
    timeout: timeoutMs,
    policy: NetworkPolicy.fromConfig({ default_deny: true, allowed_hosts: [target.host] }),
    log: createMemoryLogger(10),
  });
  try {
    const response = await client.get(target.toString(), { headers: { authorization: `Bearer ${apiKey}` } });
    if (response.status === 401) return 'it refused the configured API key (HTTP 401)';
    if (!response.ok) return `HTTP ${response.status}`;
    const body = response.json<{ status?: string; data?: DiagnosticsReport }>();
    return body.data && Array.isArray(body.data.sections) ? body.data : 'the answer was not a diagnostics report';
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.close();
  }
}

/** The checks from the files alone: nothing is bound and no request leaves the machine. */
async function offlineReport(loaded: LoadedConfig, env: NodeJS.ProcessEnv): Promise<DiagnosticsReport> {
  const { config } = loaded;
  let storage: Storage;
  try {
    // A home without a database yet (after agentd init) gets the empty one agentd serve would create.
    storage = await storageBackend(config).openReadOnly(config, loaded.home, { missing: 'create' });
  } catch (error) {
    const problems = [check('database', 'error', (error as Error).message)];
    return unusable(problems, loaded.home).report;
  }
  const redisUrl = config.storage.redis_url;
  try {
    const noRequests: GatewayClientFactory = () => {
      throw new Error('agentd doctor sends no requests');
    };
    // Awaited here: the finally below closes the storage the checks read.
    return await diagnose({
      ...storedDiagnosticsParts(loaded, storage), checkIntegrity: true,
      providers: createProviderRegistry({ config, env, gatewayClientFactory: noRequests }),
      tools: serviceTools(config, storage.turns, noRequests),
      webhook: config.webhook.enabled
        ? { enabled: true, listening: null, host: config.webhook.host, port: config.webhook.port, secretSet: config.webhook.secret !== '' }
        : null,
      scheduler: { jobs: async () => (await storage.jobs.list({ limit: MAX_JOBS, offset: 0 })).jobs.map(jobSummary), firing: null, now: Date.now() },
      runtime: { uptimeSeconds: 0, sessions: async () => 0, runsInFlight: 0 },
      // Offline there is time to walk the whole chain now.
      audit: { stats: () => storage.audit.stats(), chain: async () => ({ verdict: await storage.audit.verify(), checkedAt: Date.now() }) },
      // The probe reports through its check, not through log lines.
      redis: redisUrl === null
        ? undefined
        : async () => (await import('./coordination/redis-health.js')).probeRedis(redisUrl, createMemoryLogger(10)),
    });
  } finally {
    await storage.close();
  }
}
