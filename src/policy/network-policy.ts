import { ConfigError } from '../config/errors.js';
import type { ApprovalMode, NetworkConfig } from '../config/schema.js';
import { isLocalhostName, parseDomainEntry, parseHostEntry, type DomainEntry, type HostEntry } from './host.js';
import { cidrContains, classifyAddress, formatIp, parseCidr, sameAddress, unmapIpv4, type AddressClass, type Cidr, type IpAddress } from './ip.js';
import { NETWORK_PRESETS } from './presets.js';
import { RestRules } from './rest-rules.js';

/** Who is calling out; each category adds its own host list to the general one. */
export type GatewayCategory = 'provider' | 'tool' | 'discord' | 'mcp';
export const GATEWAY_CATEGORIES: readonly GatewayCategory[] = ['provider', 'tool', 'discord', 'mcp'];

/** The host-level verdict, reached before any I/O (no DNS either). */
export type HostVerdict =
  | { allowed: true; rule: string; entry: HostEntry | null }
  | { allowed: false; rule: null; reason: string };

/** The verdict on one resolved (or literal) address. */
export type AddressVerdict =
  | { allowed: true; rule: string | null }
  | { allowed: false; kind: AddressClass; address: string };

interface CidrEntry {
  cidr: Cidr;
  rule: string;
}

/** The `network` section, also in its older spelling (`interactive_approval: true`), as embedders pass it. */
export type PolicyConfig = Omit<NetworkConfig, 'interactive_approval'> & { interactive_approval: ApprovalMode | boolean };

/**
 * The network policy, compiled once from `network` config into lookup tables so that a request's
 * decision costs a few map lookups. Rules:
 *
 * - A host is allowed when an `allowed_hosts` entry (or the caller's category list, or a preset)
 *   names it with a matching port or no port, when an `allowed_domains` entry covers it, or when it
 *   is an IP literal inside `allowed_cidrs`. Otherwise `default_deny` decides.
 * - Every address the host leads to is then checked. Private, loopback, link-local, CGNAT, ULA,
 *   multicast, unspecified, reserved and cloud-metadata addresses are refused unless `allowed_cidrs`
 *   covers them or an allowed_hosts entry names that exact address (an IP literal, or
 *   `localhost` for loopback). A *name* on the list that resolves to such an address is refused:
 *   that is exactly what DNS rebinding looks like. This holds with `default_deny: false` too.
 * - `allowed_cidrs` never makes an unlisted *name* allowed under `default_deny`: deciding that
 *   would need a DNS query for a name nobody approved, and the query itself can leak data.
 */
export class NetworkPolicy {
  readonly defaultDeny: boolean;
  readonly interactiveApproval: boolean;
  readonly rest: RestRules;
  private readonly general = new Map<string, HostEntry[]>();
  private readonly perCategory: Record<GatewayCategory, Map<string, HostEntry[]>> = {
    provider: new Map(),
    tool: new Map(),
    discord: new Map(),
    mcp: new Map(),
  };
  private readonly domains = new Map<string, DomainEntry>();
  private readonly wildcardDomains = new Map<string, DomainEntry>();
  private readonly cidrs: CidrEntry[] = [];

  private constructor(config: PolicyConfig) {
    this.defaultDeny = config.default_deny !== false;
    // Whoever answers (terminal or API), a refused request may be put to an operator.
    this.interactiveApproval = config.interactive_approval !== false && config.interactive_approval !== 'off';
    for (const name of config.presets ?? []) {
      const hosts = Object.hasOwn(NETWORK_PRESETS, name) ? NETWORK_PRESETS[name] : undefined;
      if (!hosts) throw new ConfigError(`network.presets: unknown preset "${String(name)}"`);
      for (const host of hosts) addHost(this.general, parseHostEntry(host, `preset:${name}`));
    }
    listOf(config.allowed_hosts, 'network.allowed_hosts').forEach((text, i) =>
      addHost(this.general, parseHostEntry(text, `network.allowed_hosts[${i}]`)),
    );
    for (const category of GATEWAY_CATEGORIES) {
      const key = `${category}_allowed_hosts` as const;
      listOf(config[key], `network.${key}`).forEach((text, i) =>
        addHost(this.perCategory[category], parseHostEntry(text, `network.${key}[${i}]`)),
      );
    }
    listOf(config.allowed_domains, 'network.allowed_domains').forEach((text, i) => {
      const entry = parseDomainEntry(text, `network.allowed_domains[${i}]`);
      (entry.wildcard ? this.wildcardDomains : this.domains).set(entry.domain, entry);
    });
    listOf(config.allowed_cidrs, 'network.allowed_cidrs').forEach((text, i) => {
      const rule = `network.allowed_cidrs[${i}]`;
      const cidr = typeof text === 'string' ? parseCidr(text) : null;
      if (!cidr) throw new ConfigError(`${rule}: ${JSON.stringify(text)} is not a CIDR`);
      this.cidrs.push({ cidr, rule });
    });
    this.rest = RestRules.fromConfig(listOf(config.rest_policies, 'network.rest_policies'));
  }

  /** Compile a policy from the `network` config section; invalid entries throw `ConfigError`. */
  static fromConfig(config: Partial<PolicyConfig>): NetworkPolicy {
    return new NetworkPolicy({
      default_deny: true,
      presets: [],
      allowed_hosts: [],
      allowed_domains: [],
      allowed_cidrs: [],
      provider_allowed_hosts: [],
      tool_allowed_hosts: [],
      discord_allowed_hosts: [],
      mcp_allowed_hosts: [],
      rest_policies: [],
      interactive_approval: false,
      ...config,
    });
  }

  /** The safe default when nothing was configured: every destination is refused. */
  static denyAll(): NetworkPolicy {
    return NetworkPolicy.fromConfig({ default_deny: true });
  }

  /** Host-level decision for a normalised host (see `hostOf`) and effective port. */
  checkHost(host: string, port: number, ip: IpAddress | null, category: GatewayCategory): HostVerdict {
    const entry = findHost(this.general, host, port) ?? findHost(this.perCategory[category], host, port);
    if (entry) return { allowed: true, rule: entry.rule, entry };
    if (ip) {
      const cidr = this.cidrFor(ip);
      if (cidr) return { allowed: true, rule: cidr, entry: null };
    } else {
      const domain = this.domainFor(host);
      if (domain) return { allowed: true, rule: domain.rule, entry: null };
    }
    if (!this.defaultDeny) return { allowed: true, rule: 'network.default_deny=false', entry: null };
    return { allowed: false, rule: null, reason: `host ${host}:${port} is not allowed for category ${category}` };
  }

  /**
   * Whether a connection may go to `address`, given the host verdict that led there. The explicit
   * entry (if any) only vouches for the address it names, so a listed name cannot be rebound.
   */
  checkAddress(address: IpAddress, entry: HostEntry | null): AddressVerdict {
    const cidr = this.cidrFor(address);
    if (cidr) return { allowed: true, rule: cidr };
    const kind = classifyAddress(address);
    if (kind === null) return { allowed: true, rule: null };
    if (entry?.ip && sameAddress(entry.ip, address)) return { allowed: true, rule: entry.rule };
    if (entry && kind === 'loopback' && isLocalhostName(entry.host)) return { allowed: true, rule: entry.rule };
    return { allowed: false, kind, address: formatIp(unmapIpv4(address)) };
  }

  private cidrFor(address: IpAddress): string | null {
    const unmapped = unmapIpv4(address);
    for (const { cidr, rule } of this.cidrs) if (cidrContains(cidr, unmapped)) return rule;
    return null;
  }

  private domainFor(host: string): DomainEntry | null {
    const exact = this.domains.get(host) ?? this.wildcardDomains.get(host);
    if (exact) return exact;
    for (let dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) {
      const parent = this.wildcardDomains.get(host.slice(dot + 1));
      if (parent) return parent;
    }
    return null;
  }
}

function listOf<T>(value: readonly T[] | undefined, key: string): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ConfigError(`${key}: must be a list`);
  return value;
}

function addHost(map: Map<string, HostEntry[]>, entry: HostEntry): void {
  const list = map.get(entry.host) ?? [];
  list.push(entry);
  map.set(entry.host, list);
}

function findHost(map: Map<string, HostEntry[]>, host: string, port: number): HostEntry | undefined {
  return map.get(host)?.find((entry) => entry.port === null || entry.port === port);
}
