import { isIP } from 'node:net';

/**
 * The client address used for rate limiting and audit: the TCP peer, or with `trustProxy` the
 * leftmost X-Forwarded-For entry when it parses as an IP. The leftmost entry is whatever the client
 * sent unless the proxy overwrites the header, which is why start-up warns when trust is on.
 * Shared by the REST API and the webhook channel.
 */
export function clientIp(
  peerAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: boolean,
): string {
  const peer = normalizeIp(peerAddress ?? '') || 'unknown';
  if (!trustProxy || forwardedFor === undefined) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor[0] : forwardedFor;
  const leftmost = header?.split(',')[0]?.trim() ?? '';
  return normalizeIp(leftmost) || peer;
}

function normalizeIp(candidate: string): string {
  let ip = candidate;
  if (ip.startsWith('[') && ip.includes(']')) ip = ip.slice(1, ip.indexOf(']'));
  if (isIP(ip) === 0) return '';
  // One client must not count twice because it arrived once over IPv4 and once IPv4-mapped.
  if (ip.toLowerCase().startsWith('::ffff:') && isIP(ip.slice(7)) === 4) return ip.slice(7);
  return ip.toLowerCase();
}
