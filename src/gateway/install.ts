import type { AuditSink } from '../audit/types.js';
import { InteractiveApproval } from '../policy/approval.js';
import { systemResolver, type Resolver } from '../policy/destination.js';
import { NetworkPolicy } from '../policy/network-policy.js';

/**
 * How the configured policy reaches every client: the app calls `installGateway` once at start;
 * `createClient` reads the installed setup on each request (so a re-install applies to clients that
 * already exist). Nothing installed means a deny-everything policy: a component that forgot the
 * wiring fails closed, loudly, instead of reaching the network unchecked.
 */

export type Logger = (message: string) => void;

export const stderrLogger: Logger = (message) => {
  process.stderr.write(`${message}\n`);
};

export interface GatewaySetup {
  policy: NetworkPolicy;
  audit?: AuditSink;
  /**
   * Used when `policy.interactiveApproval` is on. Default: a prompt on this process's terminal
   * (stdin/stderr), which denies without asking when stdin is not a terminal.
   */
  approval?: InteractiveApproval;
  resolver?: Resolver;
  log?: Logger;
}

export interface InstalledGateway {
  readonly policy: NetworkPolicy;
  readonly audit: AuditSink | undefined;
  readonly approval: InteractiveApproval | undefined;
  readonly resolver: Resolver;
  readonly log: Logger;
}

function defaults(): InstalledGateway {
  return { policy: NetworkPolicy.denyAll(), audit: undefined, approval: undefined, resolver: systemResolver, log: stderrLogger };
}

let installed: InstalledGateway = defaults();

export function installGateway(setup: GatewaySetup): void {
  const approval =
    setup.approval ?? (setup.policy.interactiveApproval ? new InteractiveApproval({ audit: setup.audit }) : undefined);
  installed = {
    policy: setup.policy,
    audit: setup.audit,
    approval,
    resolver: setup.resolver ?? systemResolver,
    log: setup.log ?? stderrLogger,
  };
}

/** Back to the deny-everything default (tests, shutdown). */
export function uninstallGateway(): void {
  installed = defaults();
}

export function installedGateway(): InstalledGateway {
  return installed;
}

/** Forget the session's "allow always" answers; the agent calls this when a session ends. */
export function endGatewaySession(sessionId: string): void {
  installed.approval?.endSession(sessionId);
}
