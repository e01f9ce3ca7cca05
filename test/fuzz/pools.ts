import { COOKIE_SLOT, ID_SLOT, type GeneratedRequest } from './request-parts.js';
import type { WireRequest, WireResponse } from './send.js';
import { percentEncode } from './values.js';

const CAPACITY = 64;
const ID_KEYS = new Set(['id', 'run_id', 'session_id']);

/**
 * Ids and session cookies the service handed out during the run (a bounded ring each), so generated
 * requests reach real sessions, runs, turns and jobs, not only 404s.
 */
export class Pools {
  private readonly ids: string[] = [];
  private readonly cookies: string[] = [];

  /** The request with its placeholders filled; `ID_SLOT` stays as it is (a bad id) while no id is known. */
  fill(request: GeneratedRequest): WireRequest {
    // An id is any string a response carried under an id key (an audit event echoes what a client
    // sent), so it is encoded for where it goes: percent-encoded in the URL, escaped in JSON text.
    const id = pick(this.ids, request.pick);
    const cookie = pick(this.cookies, request.pick) ?? 'none';
    const inTarget = id === undefined ? ID_SLOT : percentEncode(id);
    const inBody = id === undefined ? ID_SLOT : JSON.stringify(id).slice(1, -1);
    // Bytes that are not a placeholder are kept as they are; the filled text is UTF-8.
    const body = request.body && request.body.includes(ID_SLOT)
      ? Buffer.concat(request.body.toString('latin1').split(ID_SLOT).flatMap((part, i) => [...(i > 0 ? [Buffer.from(inBody)] : []), Buffer.from(part, 'latin1')]))
      : request.body;
    return {
      method: request.method,
      target: request.target.replaceAll(ID_SLOT, inTarget),
      headers: [...request.headers.map(([name, value]): [string, string] => [name, value.replaceAll(COOKIE_SLOT, cookie)]), ...request.framing(body)],
      body,
    };
  }

  learn(response: WireResponse): void {
    const cookie = /^[^=]+=([^;]+)/.exec(([] as string[]).concat(response.headers['set-cookie'] ?? [])[0] ?? '')?.[1];
    if (cookie) remember(this.cookies, cookie);
    if (!String(response.headers['content-type'] ?? '').startsWith('application/json') || response.body.length > 64 * 1024) return;
    try {
      collectIds(JSON.parse(response.body.toString('utf8')), (id) => remember(this.ids, id), 0);
    } catch {
      // Not JSON: the invariants report it; there is nothing to learn.
    }
  }
}

function pick(ring: string[], n: number): string | undefined {
  return ring.length === 0 ? undefined : ring[n % ring.length];
}

function remember(ring: string[], value: string): void {
  if (ring.includes(value)) return;
  if (ring.length >= CAPACITY) ring.shift();
  ring.push(value);
}

function collectIds(value: unknown, found: (id: string) => void, depth: number): void {
  if (depth > 6 || value === null || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    if (ID_KEYS.has(key) && typeof child === 'string') found(child);
    else collectIds(child, found, depth + 1);
  }
}
