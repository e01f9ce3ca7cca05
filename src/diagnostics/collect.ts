import type { Config } from '../config/schema.js';
import type { TurnStore } from '../memory/types.js';
import type { ProviderRegistry } from '../providers/index.js';
import type { Database } from '../storage/database.js';
import type { ToolRegistry } from '../tools/index.js';
import type { DiagnosticsInput, WebhookState } from './checks.js';

/** The parts of a running (or inspected) service the doctor looks at. */
export interface DiagnosticsParts {
  config: Config;
  home: string;
  configPath: string | null;
  apiKeyFromEnv: boolean;
  db: Database;
  memory: TurnStore;
  providers: ProviderRegistry;
  tools: ToolRegistry;
  webhook: WebhookState | null;
  runtime: { uptimeSeconds: number; sessions: number; runsInFlight: number };
}

/** Read-only facts for `runDiagnostics`, gathered the same way by the API and by `agentd doctor`. */
export function collectDiagnosticsInput(parts: DiagnosticsParts): DiagnosticsInput {
  const { providers } = parts;
  return {
    config: parts.config,
    home: parts.home,
    configPath: parts.configPath,
    apiKeyFromEnv: parts.apiKeyFromEnv,
    providers: providers.list().map((info) => ({ ...info, reason: providers.get(info.name)?.unavailableReason() ?? null })),
    tools: parts.tools.list().map((t) => t.name),
    memory: { turnCount: parts.memory.count(), journalMode: String(parts.db.db.pragma('journal_mode', { simple: true })) },
    webhook: parts.webhook,
    runtime: { nodeVersion: process.version, ...parts.runtime },
    stdinIsTty: Boolean(process.stdin.isTTY),
  };
}
