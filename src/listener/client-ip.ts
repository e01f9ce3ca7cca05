import { isIP, type Socket } from 'node:net';

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

const PEER_IP = Symbol('agentd.peerIp');

/**
 * `clientIp` for a request on `socket`, its peer address normalised once per connection: a
 * keep-alive client sends many requests on one socket, and parsing its address was a measurable
 * share of an authenticated health request. A socket's peer never changes.
 */
export function requestClientIp(socket: Socket, forwardedFor: string | string[] | undefined, trustProxy: boolean): string {
  const held = socket as Socket & { [PEER_IP]?: string };
  let peer = held[PEER_IP];
  if (peer === undefined) {
    peer = clientIp(socket.remoteAddress, undefined, false);
    // Read after the socket has gone, the address is unknown: not kept, so it is never cached wrong.
    if (socket.remoteAddress !== undefined) held[PEER_IP] = peer;
  }
  return trustProxy && forwardedFor !== undefined ? clientIp(peer, forwardedFor, true) : peer;
}
