import type { StorageHealth } from '../storage/ports/health.js';
import { gatewayChecks, memoryChecks, policyChecks, providerChecks, runtimeChecks, toolChecks, webChecks, type DiagnosticsInput } from './checks.js';
import { auditCheck } from './audit.js';
import { discordChecks } from './discord-checks.js';
import { collectDiagnosticsInput, type DiagnosticsParts } from './collect.js';
export { storedDiagnosticsParts } from './collect.js';
export { logStartupChecks, startupChecks, type StartupFacts } from './startup-checks.js';
import { buildReport } from './report.js';
import { schedulerChecks } from './scheduler-checks.js';
import { SECTION_KEYS, type DiagnosticsReport } from './types.js';

export type { AuditHealth } from './audit.js';
export type { DiagnosticsInput, WebhookState } from './checks.js';
export type { SchedulerState } from './scheduler-checks.js';
export type { DiagnosticsParts } from './collect.js';
export type { Check, CheckStatus, DiagnosticsReport, Section } from './types.js';

/** The doctor report shared by `agentd doctor` and `GET /api/v1/diagnostics`. */
export function runDiagnostics(input: DiagnosticsInput): DiagnosticsReport {
  return buildReport({
    web: webChecks(input),
    providers: providerChecks(input),
    tools: toolChecks(input),
    memory: [...memoryChecks(input), auditCheck(input.audit)],
    policy: policyChecks(input),
    gateway: gatewayChecks(),
    discord: discordChecks(input.config, input.discord),
    scheduler: schedulerChecks(input.scheduler),
    runtime: runtimeChecks(input),
  });
}

/**
 * The report when the database cannot be read (a server unreachable, or its schema behind this
 * build), or null when it can: the store's checks in the memory section say what to do, and the
 * other checks, which read the database, are not run.
 */
export function unreadableDatabaseReport(health: StorageHealth): DiagnosticsReport | null {
  if (health.readable) return null;
  const skipped = [{ name: 'not_checked', status: 'warn' as const, summary: 'not checked: the database cannot be read' }];
  return buildReport(Object.fromEntries(SECTION_KEYS.map((key) => [key, key === 'memory' ? health.checks : skipped])));
}

/**
 * The report of the API and of `agentd doctor`: the store's health is read once; a shared database
 * that cannot be read is then the one thing to report (every other check reads it).
 */
export async function diagnose(parts: DiagnosticsParts): Promise<DiagnosticsReport> {
  const health = await parts.storage.health({ checkIntegrity: parts.checkIntegrity });
  return unreadableDatabaseReport(health) ?? runDiagnostics(await collectDiagnosticsInput(parts, health));
}
