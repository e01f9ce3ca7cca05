import type { Denial } from '../policy/destination.js';
import type { ApprovalGrantStage } from '../storage/ports/approvals.js';

/**
 * What `allow_session` on an approval would cover: never more than what the operator read.
 *
 * - A network request refused because its host is not allowed: that scheme, host and port (the
 *   origin, `https://b.localhost:18111`), for the host stage only. Another port, the other scheme,
 *   or a refusal by a REST rule on the same origin is asked again.
 * - A network request refused by an explicit REST `deny` rule: no session grant at all. The rule
 *   is the operator's own word that this path must not be reached; only `allow_once` overrides it,
 *   and the approval names the rule it overrides.
 * - A tool call: that exact registered tool name (`calculator` is not `calculator2`, nor an MCP
 *   tool whose name ends the same way).
 *
 * Grants on channel sessions (`webhook:<sender>`, `job:<id>`) end with the run that asked: such a
 * session lives for ever, and the next message on it is someone else's request.
 */
export interface Grant {
  /** The origin (network) or the tool name. */
  scope: string;
  stage: ApprovalGrantStage;
  /** The config rule the approval overrides (`network.rest_policies[2]`); null for a host or tool. */
  rule: string | null;
  /** Whether `allow_session` is offered at all. */
  sessionAllowed: boolean;
}

/**
 * The origin as the policy compares hosts: the host as `hostOf` gives it (lower case, IDN as
 * punycode, no trailing dot) and the effective port, so every spelling of one origin is one grant.
 */
export function originOf(denial: Pick<Denial, 'scheme' | 'host' | 'port'>): string {
  const host = denial.host.includes(':') ? `[${denial.host}]` : denial.host;
  return `${denial.scheme}://${host}:${denial.port}`;
}

export function networkGrant(denial: Denial): Grant {
  if (denial.stage === 'rest') return { scope: originOf(denial), stage: 'rest', rule: denial.rule, sessionAllowed: false };
  return { scope: originOf(denial), stage: 'host', rule: null, sessionAllowed: true };
}

export function toolGrant(tool: string): Grant {
  return { scope: tool, stage: 'tool', rule: null, sessionAllowed: true };
}

/**
 * API sessions are named `ses_<random>`; every other session id belongs to a channel
 * (`webhook:<sender>`, `job:<id>`), whose grants end with the run.
 */
export function isChannelSession(sessionId: string): boolean {
  return !/^ses_[A-Za-z0-9_-]+$/.test(sessionId);
}
