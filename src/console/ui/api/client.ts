/**
 * The console's only way to the service. Every request goes to agentd itself with the session
 * cookie; unsafe ones carry the CSRF token from the page's meta tag. A 401 means the browser
 * session is over (logged out, expired): the operator is sent to the login page.
 */

export const API_PREFIX = '/api/v1';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A refused or failed request, with the service's own message when it sent one. */
export class ApiFailure extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

type RateLimitListener = (retryAfterSeconds: number) => void;
const rateLimitListeners = new Set<RateLimitListener>();

/** Called with the wait in seconds whenever the service answers 429. Returns the unsubscribe. */
export function onRateLimited(listener: RateLimitListener): () => void {
  rateLimitListeners.add(listener);
  return () => rateLimitListeners.delete(listener);
}

function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  /** Empty and undefined values are left out. */
  query?: Record<string, string | number | undefined>;
}

/** A request to any of agentd's own addresses; resolves with the envelope's `data`. */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (UNSAFE_METHODS.has(method)) headers['x-csrf-token'] = csrfToken();
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiFailure('The service did not answer. Is agentd still running?', 0);
  }
  if (response.status === 401) {
    location.assign('/login');
    throw new ApiFailure('Your session has ended; opening the login page.', 401);
  }
  if (response.status === 429) {
    const wait = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
    const seconds = Number.isFinite(wait) && wait > 0 ? wait : 60;
    for (const listener of rateLimitListeners) listener(seconds);
    throw new ApiFailure(`Too many requests: try again in ${seconds} s.`, 429);
  }
  const body = (await response.json().catch(() => null)) as { status?: string; data?: T; error?: string } | null;
  if (!response.ok || body?.status !== 'ok') {
    throw new ApiFailure(body?.error ?? `The service answered ${response.status}.`, response.status);
  }
  return body.data as T;
}

/** A request to the REST API (`path` relative to its prefix). */
export function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return request<T>(`${API_PREFIX}${path}`, options);
}

function withQuery(path: string, query: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The message to show for anything a request threw. */
export function failureMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
