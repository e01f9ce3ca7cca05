import type { WireRequest, WireResponse } from './send.js';

/**
 * What every answer must be, whatever was asked: no 500 (or any 5xx but a deliberate 503), the
 * security headers, the envelope (or the one documented other shape of its route), the headers its
 * status promises, and no keep-alive for a client that asked to close.
 */
export type Listener = 'rest' | 'webhook';

const SECURITY = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'cache-control': 'no-store' };

export function violations(listener: Listener, request: WireRequest, response: WireResponse): string[] {
  const found: string[] = [];
  const header = (name: string) => {
    const value = response.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const { status } = response;
  if (status >= 500 && status !== 503) found.push(`status ${status}`);
  if (status < 100) found.push(`status ${status}`);
  for (const [name, value] of Object.entries(SECURITY)) {
    if (header(name) !== value) found.push(`${name} is ${JSON.stringify(header(name))}, not ${value}`);
  }
  if (status === 405 && !header('allow')) found.push('405 without Allow');
  if (status === 429 && !header('retry-after')) found.push('429 without Retry-After');
  const askedToClose = request.headers.some(([name, value]) => name.toLowerCase() === 'connection' && /(^|,)\s*close\s*(,|$)/i.test(value));
  if (askedToClose && /keep-alive/i.test(header('connection') ?? '')) found.push('Connection: close asked, keep-alive answered');
  found.push(...bodyViolations(listener, request, response, header('content-type') ?? ''));
  return found;
}

function bodyViolations(listener: Listener, request: WireRequest, response: WireResponse, type: string): string[] {
  const { status } = response;
  const head = request.method === 'HEAD';
  if (head || status === 204 || status === 304) return response.body.length === 0 ? [] : [`${status} to ${request.method} with a body`];
  if (status >= 300 && status < 400) return response.headers.location ? [] : [`${status} without Location`];
  if (type.startsWith('text/event-stream')) {
    return status === 200 && response.body.toString('utf8').startsWith('retry: ') ? [] : [`event stream ${status} not starting with retry:`];
  }
  if (type.startsWith('text/html')) {
    return response.headers['content-security-policy'] && response.headers['referrer-policy'] === 'no-referrer' ? [] : ['HTML page without CSP and Referrer-Policy'];
  }
  if (/^(text\/css|text\/javascript|application\/javascript)/.test(type)) {
    return status === 200 && decodedPath(request.target).startsWith('/assets/') ? [] : [`${type} ${status} for ${request.target}`];
  }
  if (type.startsWith('text/plain')) {
    // The Prometheus exposition of /metrics: a 200 whose lines are comments or samples.
    const text = response.body.toString('utf8');
    return status === 200 && listener === 'rest' && decodedPath(request.target) === '/metrics' && /^# (HELP|TYPE) agentd_/m.test(text)
      ? [] : [`text/plain ${status} for ${request.target}`];
  }
  if (!type.startsWith('application/json')) return [`content-type ${JSON.stringify(type)}`];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(response.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return ['body is not JSON'];
  }
  if (status >= 400) {
    const ok = body.status === 'error' && typeof body.error === 'string' && body.error !== '' && typeof body.code === 'string' && /^AGENTD_[A-Z_]+$/.test(body.code);
    return ok ? [] : [`error envelope expected: ${response.body.toString('utf8').slice(0, 200)}`];
  }
  const path = decodedPath(request.target);
  const expected = listener === 'webhook' ? body.status === 'queued' && status === 202
    : path === '/healthz' ? body.status === 'ok'
      : path === '/api/v1/openapi.json' ? typeof body.openapi === 'string'
        : body.status === 'ok' && 'data' in body;
  return expected ? [] : [`success envelope expected: ${response.body.toString('utf8').slice(0, 200)}`];
}

/** The path the router sees: before `?` or `#`, percent-decoded (`/%68ealthz` is `/healthz`). */
function decodedPath(target: string): string {
  const path = target.split(/[?#]/)[0]!;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
