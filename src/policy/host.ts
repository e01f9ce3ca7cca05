import { isIPv6 } from 'node:net';
import { ConfigError } from '../config/errors.js';
import { parseIp, type IpAddress } from './ip.js';

/**
 * Host names as the policy compares them. Both sides (the configured entry and the request URL)
 * go through the WHATWG URL host parser, so case, IDN, and the numeric IPv4 spellings
 * (`2130706433`, `0x7f.1`, `0177.0.0.1`) end up in one canonical form before any comparison.
 */

/** A URL's host for policy decisions: lowercase, IPv6 without brackets, no trailing root dot. */
export function hostOf(url: URL): string {
  let host = url.hostname;
  if (host.startsWith('[')) host = host.slice(1, -1);
  // `example.com.` is the same DNS name as `example.com`; without this a trailing dot would dodge
  // REST rules written for the host.
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

export function defaultPort(protocol: string): number {
  return protocol === 'https:' ? 443 : 80;
}

/** `localhost` and `*.localhost` always mean this machine (RFC 6761); they never go to DNS. */
export function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

export interface HostEntry {
  host: string;
  /** `null` = any port. */
  port: number | null;
  /** Set when the entry is an IP literal: such an entry is explicit permission for that address. */
  ip: IpAddress | null;
  /** Where the entry came from, e.g. `network.allowed_hosts[2]` or `preset:ollama`. */
  rule: string;
}

export interface DomainEntry {
  domain: string;
  /** `*.example.com`: the domain itself and every subdomain. */
  wildcard: boolean;
  rule: string;
}

const FORBIDDEN_IN_HOST = /[\s/?#@\\*]/;

function canonicalHost(raw: string): string | null {
  if (raw === '' || FORBIDDEN_IN_HOST.test(raw)) return null;
  try {
    const url = new URL(`http://${isIPv6(raw) ? `[${raw}]` : raw}/`);
    if (url.pathname !== '/' || url.username || url.port) return null;
    return hostOf(url) || null;
  } catch {
    return null;
  }
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** Parse `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address; throws `ConfigError`. */
export function parseHostEntry(text: string, rule: string): HostEntry {
  if (typeof text !== 'string') throw new ConfigError(`${rule}: ${JSON.stringify(text)} is not a host or host:port`);
  const fail = (): never => {
    throw new ConfigError(`${rule}: "${text}" is not a host or host:port`);
  };
  let hostPart = text;
  let portPart: string | null = null;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) fail();
    hostPart = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) fail();
      portPart = rest.slice(1);
    }
    if (!isIPv6(hostPart)) fail();
  } else if (!isIPv6(text)) {
    const colon = text.indexOf(':');
    if (colon >= 0) {
      if (text.indexOf(':', colon + 1) >= 0) fail();
      hostPart = text.slice(0, colon);
      portPart = text.slice(colon + 1);
    }
  }
  const host = canonicalHost(hostPart) ?? fail();
  let port: number | null = null;
  if (portPart !== null) port = parsePort(portPart) ?? fail();
  return { host, port, ip: parseIp(host), rule };
}

/** Parse `example.com` or `*.example.com`; throws `ConfigError`. */
export function parseDomainEntry(text: string, rule: string): DomainEntry {
  if (typeof text !== 'string') throw new ConfigError(`${rule}: ${JSON.stringify(text)} is not a domain`);
  const wildcard = text.startsWith('*.');
  const base = wildcard ? text.slice(2) : text;
  const domain = canonicalHost(base);
  if (!domain) throw new ConfigError(`${rule}: "${text}" is not a domain (example.com or *.example.com)`);
  if (parseIp(domain)) {
    throw new ConfigError(`${rule}: "${text}" is an IP address; use allowed_hosts or allowed_cidrs`);
  }
  if (wildcard && !domain.includes('.')) {
    // `*.com` would open a whole top-level domain: almost certainly a mistake in a deny-by-default policy.
    throw new ConfigError(`${rule}: "${text}" is too broad (a wildcard needs at least two labels)`);
  }
  return { domain, wildcard, rule };
}

/** A bare host name for REST rules (no port); throws `ConfigError`. */
export function parseRuleHost(text: string, rule: string): string {
  const entry = parseHostEntry(text, rule);
  if (entry.port !== null) throw new ConfigError(`${rule}: "${text}" must be a host without a port`);
  return entry.host;
}
