import { lookup } from 'node:dns/promises';
import { defaultPort, hostOf, isLocalhostName, type HostEntry } from './host.js';
import { parseIp, type IpAddress } from './ip.js';
import type { GatewayCategory, NetworkPolicy } from './network-policy.js';

/**
 * The whole decision for one outbound request: host → REST rules → addresses. Address rules that
 * need no DNS (IP literals, `localhost`) are judged before anyone is asked to approve anything. DNS
 * is queried at most once, and only after the host and the REST rules allowed the request; the addresses it
 * returns are the only ones a connection may use afterwards (the gateway pins them).
 */

/** Answers every address of a name. Injectable so tests can play a rebinding DNS server. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => {
  // `lookup` (getaddrinfo) honours /etc/hosts like every other program on the machine would.
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

/** Loopback for `localhost` without asking DNS, which may answer anything for it. */
const LOCALHOST_ADDRESSES = ['127.0.0.1', '::1'];

export type DenialStage = 'host' | 'rest' | 'address';

export interface Denial {
  allowed: false;
  stage: DenialStage;
  /** `http` or `https`: a grant made for one never covers the other. */
  scheme: string;
  host: string;
  port: number;
  method: string;
  path: string;
  category: GatewayCategory;
  /** The config entry that decided, when one did (e.g. `network.rest_policies[1]`). */
  rule: string | null;
  reason: string;
  /**
   * Whether an operator may approve it interactively. Address denials never are: approving
   * `example.com` must not open a path to 169.254.169.254 because DNS said so.
   */
  overridable: boolean;
}

export interface Allowance {
  allowed: true;
  host: string;
  port: number;
  /** Checked addresses, in resolver order: the only ones a connection may go to. */
  addresses: string[];
  rule: string;
  /** True when an operator approved a request the policy would have refused. */
  approved: boolean;
}

export type DestinationDecision = Allowance | Denial;

export interface EvaluateOptions {
  resolver?: Resolver;
  /** Asked for an overridable denial; `true` lets the request continue to the next stage. */
  approve?: (denial: Denial) => Promise<boolean>;
}

export async function evaluateDestination(
  policy: NetworkPolicy,
  request: { url: URL; method: string; category: GatewayCategory },
  options: EvaluateOptions = {},
): Promise<DestinationDecision> {
  const { url, category } = request;
  const method = request.method.toUpperCase();
  const host = hostOf(url);
  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);
  const literal = parseIp(host);
  const base = { scheme: url.protocol.replace(/:$/, ''), host, port, method, path: url.pathname, category };
  const deny = (stage: DenialStage, rule: string | null, reason: string, overridable: boolean): Denial => ({
    allowed: false,
    stage,
    ...base,
    rule,
    reason,
    overridable,
  });
  let approved = false;

  const hostVerdict = policy.checkHost(host, port, literal, category);
  const entry = hostVerdict.allowed ? hostVerdict.entry : null;
  // Address rules first, as far as they can be judged without DNS (an IP literal, `localhost`): an
  // operator is never asked to approve a request the address rules refuse anyway.
  const known = literal ? [host] : isLocalhostName(host) ? LOCALHOST_ADDRESSES : null;
  const early = known && refusedAddress(policy, host, known, literal, entry);
  if (early) return deny('address', null, early, false);
  let rule = hostVerdict.rule ?? 'interactive approval';
  if (!hostVerdict.allowed) {
    const denial = deny('host', null, hostVerdict.reason, true);
    if (!(await options.approve?.(denial))) return denial;
    approved = true;
  }

  const restVerdict = policy.rest.evaluate(host, method, url.pathname);
  if (restVerdict?.action === 'deny') {
    const denial = deny('rest', restVerdict.rule, `${method} ${url.pathname} is denied by ${restVerdict.rule}`, true);
    if (!(await options.approve?.(denial))) return denial;
    approved = true;
  } else if (restVerdict) {
    rule = restVerdict.rule;
  }

  // A name nobody listed is looked up only now, after an operator approved it: the query itself
  // could carry data out.
  const addresses = known ?? await (options.resolver ?? systemResolver)(host);
  if (addresses.length === 0) return deny('address', null, `${host} resolved to no address`, false);
  const refused = known ? null : refusedAddress(policy, host, addresses, literal, entry);
  if (refused) return deny('address', null, refused, false);
  return { allowed: true, host, port, addresses: [...addresses], rule, approved };
}

/** Why the address rules refuse one of `addresses`, or null when they allow every one. */
function refusedAddress(policy: NetworkPolicy, host: string, addresses: readonly string[], literal: IpAddress | null, entry: HostEntry | null): string | null {
  for (const text of addresses) {
    const address = literal ?? parseIp(text);
    if (!address) return `${host} resolved to something that is not an IP address`;
    const verdict = policy.checkAddress(address, entry);
    if (!verdict.allowed) {
      const what = `${verdict.kind} address ${verdict.address}`;
      return literal ? `${what} is not allowed` : `${host} resolves to ${what}, which is not allowed`;
    }
  }
  return null;
}

/**
 * What the address and host rules say of a URL without DNS and without an operator, for
 * diagnostics: a refusal (address rules first, as `evaluateDestination` judges them), or the rule
 * that allows the host; `resolved` is false when DNS would still have the last word.
 */
export function judgeHostWithoutDns(
  policy: NetworkPolicy,
  url: URL,
  category: GatewayCategory,
): { allowed: false; stage: 'host' | 'address'; reason: string } | { allowed: true; rule: string; resolved: boolean } {
  const host = hostOf(url);
  const port = url.port === '' ? defaultPort(url.protocol) : Number(url.port);
  const literal = parseIp(host);
  const verdict = policy.checkHost(host, port, literal, category);
  const entry = verdict.allowed ? verdict.entry : null;
  const known = literal ? [host] : isLocalhostName(host) ? LOCALHOST_ADDRESSES : null;
  const refused = known && refusedAddress(policy, host, known, literal, entry);
  if (refused) return { allowed: false, stage: 'address', reason: refused };
  if (!verdict.allowed) return { allowed: false, stage: 'host', reason: verdict.reason };
  return { allowed: true, rule: verdict.rule, resolved: known !== null };
}
