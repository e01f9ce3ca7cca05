import { isIPv4, isIPv6 } from 'node:net';

/**
 * IP addresses as bytes, CIDR ranges, and the address classes the network policy refuses by default.
 * Comparing bytes (not strings) is what makes `::ffff:7f00:1`, `::ffff:127.0.0.1` and `127.0.0.1`
 * the same destination.
 */
export interface IpAddress {
  family: 4 | 6;
  bytes: Uint8Array;
}

export interface Cidr {
  family: 4 | 6;
  bytes: Uint8Array;
  prefix: number;
}

/** Why an address is refused unless `allowed_cidrs` covers it; `null` for an ordinary public address. */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'ula'
  | 'multicast'
  | 'metadata'
  | 'documentation'
  | 'reserved';

function parseIpv4(text: string): Uint8Array | null {
  if (!isIPv4(text)) return null;
  return Uint8Array.from(text.split('.').map(Number));
}

function parseIpv6(text: string): Uint8Array | null {
  // A zone index (`fe80::1%eth0`) can come back from the resolver; the address class ignores it.
  const withoutZone = text.includes('%') ? text.slice(0, text.indexOf('%')) : text;
  if (!isIPv6(withoutZone)) return null;
  let hex = withoutZone;
  const lastColon = hex.lastIndexOf(':');
  const tail = hex.slice(lastColon + 1);
  if (tail.includes('.')) {
    // Rewrite a trailing dotted quad (`::ffff:1.2.3.4`) as two hex groups (`::ffff:102:304`).
    const v4 = parseIpv4(tail);
    if (!v4) return null;
    const high = ((v4[0]! << 8) | v4[1]!).toString(16);
    const low = ((v4[2]! << 8) | v4[3]!).toString(16);
    hex = `${hex.slice(0, lastColon + 1)}${high}:${low}`;
  }
  let groups: string[];
  const gap = hex.indexOf('::');
  if (gap >= 0) {
    const left = hex.slice(0, gap).split(':').filter((g) => g !== '');
    const right = hex.slice(gap + 2).split(':').filter((g) => g !== '');
    const fill = 8 - left.length - right.length;
    if (fill < 0) return null;
    groups = [...left, ...Array<string>(fill).fill('0'), ...right];
  } else {
    groups = hex.split(':');
  }
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

/** Parse a textual IPv4 or IPv6 address (brackets allowed around IPv6); `null` if it is not one. */
export function parseIp(text: string): IpAddress | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseIpv4(bare);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = parseIpv6(bare);
  return v6 ? { family: 6, bytes: v6 } : null;
}

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** `::ffff:a.b.c.d` reaches a.b.c.d: policy decisions treat it as that IPv4 address. */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.family === 6 && MAPPED_PREFIX.every((b, i) => address.bytes[i] === b)) {
    return { family: 4, bytes: address.bytes.slice(12) };
  }
  return address;
}

export function formatIp(address: IpAddress): string {
  if (address.family === 4) return Array.from(address.bytes).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((address.bytes[i]! << 8) | address.bytes[i + 1]!);
  // Compress the longest run of zero groups (RFC 5952).
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** Parse `a.b.c.d/n` or `x::/n`; a bare address is a single-host range. `null` if malformed. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  const address = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (!address || text.includes('%')) return null;
  const max = address.family === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const digits = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(digits)) return null;
    prefix = Number(digits);
    if (prefix > max) return null;
  }
  return { family: address.family, bytes: address.bytes, prefix };
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.family !== address.family) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((cidr.bytes[i]! & mask) !== (address.bytes[i]! & mask)) return false;
  }
  return true;
}

function range(text: string, kind: AddressClass): { cidr: Cidr; kind: AddressClass } {
  const cidr = parseCidr(text);
  if (!cidr) throw new Error(`bad built-in range ${text}`);
  return { cidr, kind };
}

// Order matters: the first range that contains the address names its class, so the specific
// cloud-metadata addresses come before the link-local, CGNAT and ULA blocks that hold them.
const SPECIAL_RANGES = [
  range('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OCI instance metadata
  range('169.254.170.2/32', 'metadata'), // AWS ECS task metadata
  range('100.100.100.200/32', 'metadata'), // Alibaba Cloud metadata
  range('fd00:ec2::254/128', 'metadata'), // AWS instance metadata over IPv6
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'cgnat'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::/96', 'reserved'), // deprecated IPv4-compatible addresses
  range('64:ff9b:1::/48', 'reserved'), // local-use NAT64
  range('100::/64', 'reserved'), // discard-only
  range('2001:db8::/32', 'documentation'),
  range('2001::/23', 'reserved'), // IETF protocol assignments, including Teredo tunnels
  range('3fff::/20', 'documentation'),
  range('fc00::/7', 'ula'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'private'), // deprecated site-local
  range('ff00::/8', 'multicast'),
];

const NAT64 = parseCidr('64:ff9b::/96')!;
/** IPv4-translated addresses (SIIT, RFC 2765): `::ffff:0:a.b.c.d`. */
const IPV4_TRANSLATED = parseCidr('::ffff:0:0:0/96')!;
const SIX_TO_FOUR = parseCidr('2002::/16')!;

/**
 * The class of a non-public address, or `null` for a public one. IPv6 forms that carry an IPv4
 * address (mapped, translated, NAT64, 6to4) are judged by the IPv4 address they lead to, so that
 * `64:ff9b::a9fe:a9fe` cannot reach the metadata service.
 */
export function classifyAddress(input: IpAddress): AddressClass | null {
  const address = unmapIpv4(input);
  if (address.family === 6) {
    if (cidrContains(NAT64, address) || cidrContains(IPV4_TRANSLATED, address)) {
      return classifyAddress({ family: 4, bytes: address.bytes.slice(12) });
    }
    if (cidrContains(SIX_TO_FOUR, address)) return classifyAddress({ family: 4, bytes: address.bytes.slice(2, 6) });
  }
  for (const { cidr, kind } of SPECIAL_RANGES) if (cidrContains(cidr, address)) return kind;
  return null;
}

export function sameAddress(a: IpAddress, b: IpAddress): boolean {
  const x = unmapIpv4(a);
  const y = unmapIpv4(b);
  return x.family === y.family && x.bytes.every((v, i) => v === y.bytes[i]);
}
