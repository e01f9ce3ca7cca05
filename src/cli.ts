import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { AuditLog } from './audit/log.js';
import { createApp } from './app.js';
import { bootstrapConfig, ensureHome, loadConfig, resolveHome, writeConfigFile } from './config/load.js';
import { doctorReport } from './doctor.js';
import { configJsonSchema } from './config/schema.js';
import type { DiagnosticsReport } from './diagnostics/index.js';
import { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './log.js';
import { randomToken } from './security/tokens.js';
import { SqliteStorage } from './storage/sqlite/index.js';
import { VERSION } from './version.js';

interface HomeOptions {
  home?: string;
  config?: string;
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be an integer 0..65535 (0 = any free port)');
  return Number(value);
}

function oneOf<T extends string>(allowed: readonly T[]) {
  return (value: string): T => {
    if (!(allowed as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${allowed.join(', ')}`);
    return value as T;
  };
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

interface ServeOptions extends HomeOptions {
  host?: string;
  port?: number;
  logLevel?: LogLevel;
  logFormat?: LogFormat;
}

async function serve(options: ServeOptions): Promise<void> {
  // Logs go to standard error; they are made readable when that is a terminal, JSON otherwise.
  const log = createLogger({ level: options.logLevel ?? 'info', format: options.logFormat ?? (process.stderr.isTTY ? 'pretty' : 'json') });
  // First run: the config (with a fresh key) is written before anything else can fail, and the key
  // is printed whatever happens next — a start that fails now must not leave an unknown key behind.
  const loaded = loadConfig({ home: options.home, configPath: options.config, bootstrap: true });
  const showKey = (url: string | null) => {
    if (!loaded.bootstrapKey) return;
    out(`First run: wrote ${loaded.configPath} with a new API key (shown only this once; it stays in that file):`);
    out(`  API key: ${loaded.bootstrapKey}`);
    if (url) out(`  Console: ${url}/`);
  };
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    app = await createApp({ home: options.home, configPath: options.config, host: options.host, port: options.port, log });
  } catch (error) {
    showKey(null);
    throw error;
  }
  // Handlers go in before the ready line: a supervisor may signal as soon as it reads it.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`received ${signal}, shutting down\n`);
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  let url: string;
  try {
    url = await app.listen();
  } catch (error) {
    showKey(null);
    // The lock, the database (and its WAL) and any listener that did bind are released.
    stopping = true;
    await app.close();
    throw error;
  }
  showKey(url);
  out(`agentd listening on ${url}`);
}

function init(options: HomeOptions): void {
  const home = resolveHome(options.home, process.env);
  const path = resolve(options.config ?? join(home, 'config.yaml'));
  if (existsSync(path)) throw new Error(`${path} already exists; remove it first to start over`);
  ensureHome(home);
  const key = randomToken(32);
  writeConfigFile(path, bootstrapConfig(key));
  out(`wrote ${path}`);
  out(`API key (shown only this once): ${key}`);
}

/**
 * A home's database for the commands that only read it: nothing is written, so they work on a
 * read-only home (a snapshot, a backup mount) and never migrate or checkpoint beside a service.
 */
const openReadOnly = (file: string) => new SqliteStorage(file, { readonly: true });

async function auditVerify(options: HomeOptions): Promise<void> {
  const home = resolveHome(options.home, process.env);
  const file = join(home, 'agentd.db');
  if (!existsSync(file)) throw new Error(`no database at ${file}`);
  let storage: SqliteStorage;
  try {
    storage = openReadOnly(file);
  } catch (error) {
    throw new Error(`cannot open the database ${file} (${(error as Error).message})`);
  }
  try {
    const result = await new AuditLog(storage.audit).verify();
    if (result.ok) {
      out(`audit chain ok: ${result.count} events verified`);
    } else {
      out(`audit chain BROKEN at event #${result.brokenAt.seq} (${result.brokenAt.id}): ${result.brokenAt.reason}`);
      process.exitCode = 1;
    }
  } finally {
    await storage.close();
  }
}

/**
 * The same checks as GET /api/v1/diagnostics: the running service's own report when one runs on
 * this home, else checked from the files without starting anything (safe beside a service).
 */
async function doctor(options: HomeOptions & { json?: boolean }): Promise<void> {
  // A home without a database yet (after agentd init) gets the empty one agentd serve would create.
  const openStorage = (file: string) => (existsSync(file) ? openReadOnly(file) : new SqliteStorage(file));
  const { report, source, detail } = await doctorReport({ home: options.home, config: options.config, openStorage });
  const origin = source === 'live' ? `live report from the service at ${detail}` : `offline report (${detail})`;
  out(options.json ? JSON.stringify({ ...report, source, source_detail: detail }, null, 2) : `${origin}\n${formatReport(report)}`);
  if (report.overall === 'error') process.exitCode = 1;
}

function formatReport(report: DiagnosticsReport): string {
  const lines = [`agentd doctor: ${report.overall} (${report.counts.ok} ok, ${report.counts.warn} warn, ${report.counts.error} error)`];
  for (const section of report.sections) {
    lines.push('', `[${section.status}] ${section.label}`);
    for (const check of section.checks) {
      lines.push(`  ${check.status.padEnd(5)} ${check.name}: ${check.summary}`);
      if (check.remediation) lines.push(`        fix: ${check.remediation}`);
    }
  }
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<void> {
  const program = new Command('agentd').version(VERSION).description('A security-first agent service');
  const withHome = (cmd: Command) =>
    cmd.option('--home <dir>', 'home folder (default $AGENTD_HOME or ~/.agentd)').option('--config <file>', 'config file (default <home>/config.yaml)');

  withHome(program.command('serve').description('start the service'))
    .option('--host <host>', 'bind address (default from config, 127.0.0.1)')
    .option('--port <port>', 'port (0 = any free port)', parsePort)
    .option('--log-level <level>', `lowest level logged: ${LOG_LEVELS.join(', ')} (default info)`, oneOf(LOG_LEVELS))
    .option('--log-format <format>', 'json, or pretty for people (default: pretty when standard error is a terminal, else json)', oneOf(LOG_FORMATS))
    .action(serve);
  withHome(program.command('doctor').description('check the configuration and environment; exit 1 when any check is an error'))
    .option('--json', 'print the report as JSON')
    .action(doctor);
  withHome(program.command('init').description('write a config file with a fresh API key')).action(init);
  const audit = program.command('audit').description('audit log tools');
  withHome(audit.command('verify').description('check the audit hash chain; exit 1 at the first broken link')).action(auditVerify);
  const config = program.command('config').description('configuration tools');
  config.command('schema').description('print the JSON Schema of the config file').action(() => out(JSON.stringify(configJsonSchema(), null, 2)));

  await program.parseAsync(argv);
}
