import { gatewayChecks, memoryChecks, policyChecks, providerChecks, runtimeChecks, toolChecks, webChecks, type DiagnosticsInput } from './checks.js';
import { auditCheck } from './audit.js';
import { buildReport } from './report.js';
import { schedulerChecks } from './scheduler-checks.js';
import type { DiagnosticsReport } from './types.js';

export type { AuditHealth } from './audit.js';
export type { DiagnosticsInput, WebhookState } from './checks.js';
export type { SchedulerState } from './scheduler-checks.js';
export { collectDiagnosticsInput, type DiagnosticsParts } from './collect.js';
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
    discord: [{ name: 'channel', status: 'ok', summary: 'no Discord channel configured' }],
    scheduler: schedulerChecks(input.scheduler),
    runtime: runtimeChecks(input),
  });
}
