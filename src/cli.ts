import { once } from 'node:events';
import { createReadStream, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Command, InvalidArgumentError } from 'commander';
import { GENESIS_HASH } from './storage/ports/audit-chain.js';
import { exportLine, verifyExport } from './audit/export.js';
import { AuditLog } from './audit/log.js';
import { parseAuditTimestamp } from './storage/ports/audit-query.js';
import { createApp } from './app.js';
import { bootstrapConfig, ensureHome, loadConfig, resolveHome, writeConfigFile } from './config/load.js';
import { doctorReport } from './doctor.js';
import { configJsonSchema } from './config/schema.js';
import type { DiagnosticsReport } from './diagnostics/index.js';
import { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './log.js';
import { randomToken } from './security/ids/tokens.js';
import type { Config } from './config/schema.js';
import { homeFile } from './config/home-layout.js';
import { storageBackend } from './storage/registry.js';
import type { Storage } from './storage/ports/storage.js';
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
    app = await createApp({ loaded, host: options.host, port: options.port, log });
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
  const path = resolve(options.config ?? homeFile(home, 'config'));
  if (existsSync(path)) throw new Error(`${path} already exists; remove it first to start over`);
  ensureHome(home);
  const key = randomToken(32);
  writeConfigFile(path, bootstrapConfig(key));
  out(`wrote ${path}`);
  out(`API key (shown only this once): ${key}`);
}

/** The config when the home has one (the audit commands also work on a bare SQLite home). */
function configIfAny(options: HomeOptions): Config | null {
  const home = resolveHome(options.home, process.env);
  if (options.config === undefined && !existsSync(homeFile(home, 'config'))) return null;
  return loadConfig({ home: options.home, configPath: options.config }).config;
}

/**
 * The configured database for the commands that only read it: nothing is written, so they work on
 * a read-only home (a snapshot, a backup mount) and never migrate beside a service.
 */
function openDatabase(options: HomeOptions): Promise<Storage> {
  const config = configIfAny(options);
  return storageBackend(config).openReadOnly(config, resolveHome(options.home, process.env));
}

/** Applies the schema migrations of the configured backend and exits. */
async function migrateCommand(options: HomeOptions): Promise<void> {
  const { config, home } = loadConfig({ home: options.home, configPath: options.config });
  out(await storageBackend(config).migrate(config, home));
}

/** Copies the home's data to a new FILE, while the service runs or not, where the backend keeps its data in the home. */
async function backupCommand(file: string, options: HomeOptions): Promise<void> {
  const config = configIfAny(options);
  out(await storageBackend(config).backup(config, resolveHome(options.home, process.env), file));
}

async function auditVerify(exportFile: string | undefined, options: HomeOptions): Promise<void> {
  if (exportFile !== undefined) return auditVerifyExport(exportFile);
  const storage = await openDatabase(options);
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

function timestamp(value: string): string {
  const parsed = parseAuditTimestamp(value);
  if (parsed === null) throw new InvalidArgumentError('must be an ISO 8601 date-time with Z or an offset, such as 2026-01-05T13:00:00Z');
  return parsed;
}

/** The chain over a time range as JSON lines on standard output, written as fast as the reader takes them. */
async function auditExport(options: HomeOptions & { since?: string; until?: string }): Promise<void> {
  const storage = await openDatabase(options);
  // A reader that stops early (`| head`) ends the export quietly.
  let closed = false;
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  };
  process.stdout.on('error', onError);
  try {
    let chunk = '';
    for await (const event of new AuditLog(storage.audit).exportChain({ since: options.since, until: options.until })) {
      chunk += `${exportLine(event)}\n`;
      if (chunk.length < 65_536) continue;
      if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
      chunk = '';
      if (closed) return;
    }
    if (chunk !== '') process.stdout.write(chunk);
  } finally {
    process.stdout.off('error', onError);
    await storage.close();
  }
}

/** Checks an export (`-` = standard input) without the database. */
async function auditVerifyExport(file: string): Promise<void> {
  const input = file === '-' ? process.stdin : createReadStream(file);
  const verdict = await verifyExport(createInterface({ input, crlfDelay: Infinity }));
  if (!verdict.ok) {
    out(`audit export BROKEN at line ${verdict.line}${verdict.id ? ` (${verdict.id})` : ''}: ${verdict.reason}`);
    process.exitCode = 1;
    return;
  }
  const start = verdict.start === null ? '' : verdict.start === GENESIS_HASH
    ? '; it starts with the log'
    : verdict.startPruned ? '; it starts where retention pruned the log (an audit.pruned record vouches for it)' : `; it continues from ${verdict.start}`;
  const end = verdict.end === null ? '' : `; last hash ${verdict.end} (the log has it if nothing was cut off the end)`;
  out(`audit export ok: ${verdict.count} events verified${start}${end}`);
}

/**
 * The same checks as GET /api/v1/diagnostics: the running service's own report when one runs on
 * this home, else checked from the files without starting anything (safe beside a service).
 */
async function doctor(options: HomeOptions & { json?: boolean }): Promise<void> {
  const { report, source, detail } = await doctorReport({ home: options.home, config: options.config });
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
  withHome(program.command('migrate').description('apply the database schema migrations of the configured backend and exit')).action(migrateCommand);
  withHome(program.command('backup <file>').description('copy the SQLite database to a new FILE, safely while the service runs (PostgreSQL: use pg_dump)'))
    .action(backupCommand);
  withHome(program.command('init').description('write a config file with a fresh API key')).action(init);
  const audit = program.command('audit').description('audit log tools');
  withHome(audit.command('verify [file]').description('check the audit hash chain of the database, or of an export FILE (- reads standard input); exit 1 at the first broken link'))
    .action(auditVerify);
  withHome(audit.command('export').description('write the audit chain as JSON lines (oldest first, each with its hashes) to standard output'))
    .option('--since <time>', 'from the first event at or after this ISO 8601 time (with Z or an offset)', timestamp)
    .option('--until <time>', 'to the last event before this time', timestamp)
    .option('--format <format>', 'jsonl (the only one)', oneOf(['jsonl'] as const), 'jsonl')
    .action(auditExport);
  const config = program.command('config').description('configuration tools');
  config.command('schema').description('print the JSON Schema of the config file').action(() => out(JSON.stringify(configJsonSchema(), null, 2)));

  await program.parseAsync(argv);
}
