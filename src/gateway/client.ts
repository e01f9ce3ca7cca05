import type { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import type { AuditSink } from '../audit/types.js';
import type { InteractiveApproval } from '../policy/approval.js';
import { evaluateDestination, type Denial, type DestinationDecision, type Resolver } from '../policy/destination.js';
import { hostOf } from '../policy/host.js';
import type { GatewayCategory, NetworkPolicy } from '../policy/network-policy.js';
import { GatewayAudit } from './audit.js';
import { boundedWebStream, declaredOverLimit, DEFAULT_MAX_RESPONSE_BYTES, readBounded } from './body.js';
import { createAgent, PinnedAddresses, pinKey } from './connector.js';
import { GatewayError, InvalidUrlError, PolicyViolationError, ResponseTooLargeError } from './errors.js';
import { headerRecord, prepareFetch, toWebResponse, type FetchBody } from './fetch-adapter.js';
import { installedGateway, type Logger } from './install.js';
import { allowedOptions, encodeBody, methodOf, outgoingHeaders, timeoutOf, type OutgoingHeaders, type RequestOptions } from './options.js';
import { GatewayResponse } from './response.js';
import { targetUrl } from './url.js';

export interface ClientOptions {
  category: GatewayCategory;
  sessionId?: string | null;
  taskId?: string | null;
  /** Milliseconds for each wait (connect, response headers, gap between body chunks); default 30 s. */
  timeout?: number;
  /** Largest response body accepted; default 50 MiB. */
  maxResponseBytes?: number;
  /** Explicit setup for tests and embedders; otherwise what `installGateway` installed is used. */
  policy?: NetworkPolicy;
  audit?: AuditSink;
  approval?: InteractiveApproval;
  resolver?: Resolver;
  log?: Logger;
}

export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface GatewayClient extends AsyncDisposable {
  request(method: string, url: string | URL, options?: RequestOptions): Promise<GatewayResponse>;
  get(url: string | URL, options?: RequestOptions): Promise<GatewayResponse>;
  post(url: string | URL, options?: RequestOptions): Promise<GatewayResponse>;
  put(url: string | URL, options?: RequestOptions): Promise<GatewayResponse>;
  patch(url: string | URL, options?: RequestOptions): Promise<GatewayResponse>;
  delete(url: string | URL, options?: RequestOptions): Promise<GatewayResponse>;
  head(url: string | URL, options?: RequestOptions): Promise<GatewayResponse>;
  /** WHATWG-compatible `fetch` (bound; pass it as `fetch: client.fetch` to SDKs). Bodies stream. */
  readonly fetch: FetchFunction;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

interface Outgoing {
  method: string;
  url: URL;
  headers: OutgoingHeaders;
  body: FetchBody;
  signal: AbortSignal | undefined;
  timeout: number;
}

interface Opened {
  response: Dispatcher.ResponseData;
  approved: boolean;
}

/**
 * The single outbound HTTP client. Each request runs the spec's flow in order: URL check →
 * network policy → REST rules → (DNS, address check) → send on a pinned connection without
 * following redirects → size limit → audit → return. The option allowlist is applied first of all
 * (it is pure, and `query` is part of the URL being checked); every refusal happens before the
 * refused I/O.
 */
class Client implements GatewayClient {
  private readonly pins = new PinnedAddresses();
  private readonly agent: Agent;
  private readonly audit: GatewayAudit;
  private readonly timeout: number;
  private readonly maxResponseBytes: number;
  private closed = false;

  constructor(private readonly options: ClientOptions) {
    this.timeout = timeoutOf(options.timeout, DEFAULT_TIMEOUT_MS);
    const max = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!Number.isSafeInteger(max) || max < 0) throw new TypeError('maxResponseBytes must be a non-negative integer');
    this.maxResponseBytes = max;
    this.agent = createAgent(this.pins, this.timeout);
    this.audit = new GatewayAudit(
      () => options.audit ?? installedGateway().audit,
      options.category,
      options.sessionId ?? null,
      options.taskId ?? null,
      (message) => this.log(message),
    );
  }

  async request(method: string, url: string | URL, options?: RequestOptions): Promise<GatewayResponse> {
    return this.send(methodOf(method), url, options);
  }
  get(url: string | URL, options?: RequestOptions) {
    return this.send('GET', url, options);
  }
  post(url: string | URL, options?: RequestOptions) {
    return this.send('POST', url, options);
  }
  put(url: string | URL, options?: RequestOptions) {
    return this.send('PUT', url, options);
  }
  patch(url: string | URL, options?: RequestOptions) {
    return this.send('PATCH', url, options);
  }
  delete(url: string | URL, options?: RequestOptions) {
    return this.send('DELETE', url, options);
  }
  head(url: string | URL, options?: RequestOptions) {
    return this.send('HEAD', url, options);
  }

  readonly fetch: FetchFunction = async (input, init) => {
    const prepared = await prepareFetch(input, init, (message) => this.log(message));
    const url = this.checkedUrl(prepared.method, prepared.url);
    const outgoing = outgoingHeaders(headerRecord(prepared.headers));
    const request: Outgoing = { ...prepared, url, headers: outgoing.headers, timeout: this.timeout };
    const { response, approved } = await this.open(request);
    this.audit.completed(request.method, url, response.statusCode, approved);
    const stream =
      request.method === 'HEAD'
        ? (response.body.resume(), null)
        : boundedWebStream(response.body, this.maxResponseBytes, (error) => this.deniedSize(request, error));
    return toWebResponse(response.statusCode, response.statusText ?? '', response.headers, stream, url.href);
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.agent.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private log(message: string): void {
    (this.options.log ?? installedGateway().log)(message);
  }

  private async send(method: string, input: string | URL, rawOptions: RequestOptions | undefined): Promise<GatewayResponse> {
    const options = allowedOptions(rawOptions, (message) => this.log(message));
    const url = this.checkedUrl(method, input, options);
    const { headers, dropped } = outgoingHeaders(options.headers);
    if (dropped.length > 0) this.log(`gateway: dropped request header(s) the gateway sets itself: ${dropped.join(', ')}`);
    const body = encodeBody(options, headers);
    const request: Outgoing = { method, url, headers, body, signal: options.signal, timeout: timeoutOf(options.timeout, this.timeout) };
    const { response, approved } = await this.open(request);
    let bytes: Buffer;
    try {
      bytes = await readBounded(response.body, this.maxResponseBytes);
    } catch (error) {
      if (error instanceof ResponseTooLargeError) this.deniedSize(request, error);
      else this.audit.failed(method, url, error);
      throw error;
    }
    this.audit.completed(method, url, response.statusCode, approved);
    return new GatewayResponse(response.statusCode, response.statusText ?? '', response.headers, bytes, url.href);
  }

  /** Step 1: a bad URL is refused (and audited) before anything else happens. */
  private checkedUrl(method: string, input: string | URL, options?: RequestOptions): URL {
    if (this.closed) throw new GatewayError('the gateway client is closed');
    try {
      return targetUrl(input, options?.query);
    } catch (error) {
      if (error instanceof InvalidUrlError) {
        let host: string | null = null;
        try {
          host = hostOf(new URL(String(input)));
        } catch {
          // no host to report
        }
        this.audit.denied({ method, url: String(input), host, stage: 'url', rule: null, reason: error.message });
      }
      throw error;
    }
  }

  /** Steps 2–4: policy, then the request on a pinned connection; returns once headers arrived. */
  private async open(request: Outgoing): Promise<Opened> {
    const setup = installedGateway();
    const policy = this.options.policy ?? setup.policy;
    const approval = this.options.approval ?? setup.approval;
    let decision: DestinationDecision;
    try {
      decision = await evaluateDestination(
        policy,
        { url: request.url, method: request.method, category: this.options.category },
        {
          resolver: withTimeout(this.options.resolver ?? setup.resolver, request.timeout),
          approve: policy.interactiveApproval && approval ? (denial) => this.askOperator(approval, denial) : undefined,
        },
      );
    } catch (error) {
      // DNS failed (no such name, timeout): nothing was sent, but the attempt is still on record.
      this.audit.failed(request.method, request.url, error);
      throw error;
    }
    if (!decision.allowed) {
      this.audit.denied({ method: request.method, url: request.url, host: decision.host, stage: decision.stage, rule: decision.rule, reason: decision.reason });
      throw new PolicyViolationError(decision.host, this.options.category, decision.stage, decision.rule, decision.reason);
    }
    const { url } = request;
    this.pins.set(pinKey(url.protocol, url.hostname, url.port), decision.addresses);
    let response: Dispatcher.ResponseData;
    try {
      response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body as string | Uint8Array | Readable | null,
        signal: request.signal,
        headersTimeout: request.timeout,
        bodyTimeout: request.timeout,
      });
    } catch (error) {
      this.audit.failed(request.method, url, error);
      throw error;
    }
    // Step 5, the cheap half: a declared size over the limit is refused without reading the body.
    const declared = request.method === 'HEAD' ? null : declaredOverLimit(response.headers['content-length'], this.maxResponseBytes);
    if (declared !== null) {
      response.body.destroy();
      const error = new ResponseTooLargeError(this.maxResponseBytes, declared);
      this.deniedSize(request, error);
      throw error;
    }
    return { response, approved: decision.approved };
  }

  private askOperator(approval: InteractiveApproval, denial: Denial): Promise<boolean> {
    if (!denial.overridable) return Promise.resolve(false);
    const sessionId = this.options.sessionId ?? null;
    const [action, detail] =
      denial.stage === 'rest'
        ? ['network_rest_request', `${denial.method} ${denial.host}:${denial.port}${denial.path}`]
        : ['network_request', `${denial.category} ${denial.host}:${denial.port}`];
    if (approval.checkRemembered(action, detail, sessionId)) return Promise.resolve(true);
    return approval.promptUser(action, detail, sessionId);
  }

  private deniedSize(request: Outgoing, error: ResponseTooLargeError): void {
    this.audit.denied({
      method: request.method,
      url: request.url,
      host: hostOf(request.url),
      stage: 'size',
      rule: 'maxResponseBytes',
      reason: error.message,
    });
  }
}

/** A lookup that takes longer than the request's timeout fails like a connection would. */
function withTimeout(resolver: Resolver, timeoutMs: number): Resolver {
  return (hostname) =>
    new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new GatewayError(`DNS lookup for ${hostname} timed out after ${timeoutMs} ms`)), timeoutMs);
      resolver(hostname).then(
        (addresses) => {
          clearTimeout(timer);
          resolve(addresses);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
}

/** Create a gateway client. Close it (or use `await using`) to release its connections. */
export function createClient(options: ClientOptions): GatewayClient {
  return new Client(options);
}
