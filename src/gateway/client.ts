import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { AuditSink } from '../storage/ports/audit.js';
import type { Logger } from '../log.js';
import type { Approver } from '../policy/approver.js';
import { evaluateDestination, type Denial, type DestinationDecision, type Resolver } from '../policy/destination.js';
import { hostOf } from '../policy/host.js';
import type { GatewayCategory, NetworkPolicy } from '../policy/network-policy.js';
import { GatewayAudit, type AuditWrites } from './audit.js';
import type { GatewayMetrics } from '../metrics/index.js';
import { boundedWebStream, declaredOverLimit, DEFAULT_MAX_RESPONSE_BYTES, readBounded } from './body.js';
import { Deadline } from './deadline.js';
import { GatewayError, InvalidUrlError, PolicyViolationError, ResponseTooLargeError } from './errors.js';
import { headerRecord, prepareFetch, toWebResponse, type FetchBody } from './fetch-adapter.js';
import { allowedOptions, encodeBody, methodOf, outgoingHeaders, timeoutOf, type OutgoingHeaders, type RequestOptions } from './options.js';
import type { ConnectionPool } from './pool.js';
import { GatewayResponse } from './response.js';
import { targetUrl } from './url.js';

export interface ClientOptions {
  category: GatewayCategory;
  sessionId?: string | null;
  taskId?: string | null;
  /** The HTTP request the client works for (its `X-Request-Id`), named on the audit events. */
  requestId?: string;
  /**
   * Milliseconds for the whole request — DNS, waiting for a connection, connecting, headers and
   * the entire body (for `fetch`, until the body has been read); default 30 s.
   */
  timeout?: number;
  /** Largest response body accepted; default 50 MiB. */
  maxResponseBytes?: number;
}

/** What a client uses of the gateway that made it (see `Gateway`). */
export interface GatewayParts {
  readonly policy: NetworkPolicy;
  readonly audit: AuditSink | undefined;
  readonly auditWrites: AuditWrites;
  readonly approval: Approver | undefined;
  readonly resolver: Resolver;
  readonly log: Logger;
  readonly pool: ConnectionPool;
  readonly metrics?: GatewayMetrics;
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
  /** Runs until the body is over; the caller ends it. */
  deadline: Deadline;
}

/**
 * The single outbound HTTP client. Each request runs docs/gateway.md#request-flow in order: URL check →
 * network policy → REST rules → (DNS, address check) → send on a pinned, pooled connection without
 * following redirects → size limit → audit → return. The option allowlist is applied first of all
 * (it is pure, and `query` is part of the URL being checked); every refusal happens before the
 * refused I/O. Clients are cheap: the connections belong to the gateway's pool.
 */
export class Client implements GatewayClient {
  private readonly audit: GatewayAudit;
  private readonly timeout: number;
  private readonly maxResponseBytes: number;
  private closed = false;

  constructor(
    private readonly gateway: GatewayParts,
    private readonly options: ClientOptions,
    /** Runs once on close: a standalone client closes the private gateway it owns. */
    private readonly onClose?: () => Promise<void>,
  ) {
    this.timeout = timeoutOf(options.timeout, DEFAULT_TIMEOUT_MS);
    const max = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!Number.isSafeInteger(max) || max < 0) throw new TypeError('maxResponseBytes must be a non-negative integer');
    this.maxResponseBytes = max;
    this.audit = new GatewayAudit(
      gateway,
      { category: options.category, sessionId: options.sessionId ?? null, taskId: options.taskId ?? null, requestId: options.requestId },
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
    const prepared = await prepareFetch(input, init, this.gateway.log);
    const url = await this.checkedUrl(prepared.method, prepared.url);
    const outgoing = outgoingHeaders(headerRecord(prepared.headers));
    const request: Outgoing = { ...prepared, url, headers: outgoing.headers, timeout: this.timeout };
    const { response, approved, deadline } = await this.open(request);
    // The deadline covers the body too: it ends when the body closes, read or not.
    response.body.once('close', () => deadline.end());
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
    await this.onClose?.();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async send(method: string, input: string | URL, rawOptions: RequestOptions | undefined): Promise<GatewayResponse> {
    const log = this.gateway.log;
    const options = allowedOptions(rawOptions, log);
    const url = await this.checkedUrl(method, input, options);
    const { headers, dropped } = outgoingHeaders(options.headers);
    if (dropped.length > 0) log.warn(`gateway: dropped request header(s) the gateway sets itself: ${dropped.join(', ')}`);
    const body = encodeBody(options, headers);
    const request: Outgoing = { method, url, headers, body, signal: options.signal, timeout: timeoutOf(options.timeout, this.timeout) };
    const { response, approved, deadline } = await this.open(request);
    let bytes: Buffer;
    try {
      bytes = await readBounded(response.body, this.maxResponseBytes);
    } catch (error) {
      if (error instanceof ResponseTooLargeError) await this.deniedSize(request, error);
      else await this.audit.failed(method, url, error);
      throw error;
    } finally {
      deadline.end();
    }
    this.audit.completed(method, url, response.statusCode, approved);
    return new GatewayResponse(response.statusCode, response.statusText ?? '', response.headers, bytes, url.href);
  }

  /** Step 1: a bad URL is refused (and audited) before anything else happens. */
  private async checkedUrl(method: string, input: string | URL, options?: RequestOptions): Promise<URL> {
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
        await this.audit.denied({ method, url: String(input), host, stage: 'url', rule: null, reason: error.message });
      }
      throw error;
    }
  }

  /**
   * Steps 2–4: policy, then the request on a pinned connection; returns once headers arrived. The
   * deadline starts with the first network step (DNS, or the connection for an IP literal), so an
   * operator's time at an approval prompt is not taken from the request.
   */
  private async open(request: Outgoing): Promise<Opened> {
    const { policy, approval, resolver } = this.gateway;
    const host = hostOf(request.url);
    let deadline: Deadline | undefined;
    const begin = (): Deadline => (deadline ??= new Deadline(host, request.timeout, request.signal));
    try {
      return await this.openWithin(request, policy, approval, resolver, begin);
    } catch (error) {
      deadline?.end();
      throw error;
    }
  }

  private async openWithin(
    request: Outgoing,
    policy: NetworkPolicy,
    approval: Approver | undefined,
    resolver: Resolver,
    begin: () => Deadline,
  ): Promise<Opened> {
    let decision: DestinationDecision;
    try {
      decision = await evaluateDestination(
        policy,
        { url: request.url, method: request.method, category: this.options.category },
        {
          resolver: (hostname) => begin().race(resolver(hostname)),
          approve: policy.interactiveApproval && approval ? (denial) => this.askOperator(approval, denial, request) : undefined,
        },
      );
    } catch (error) {
      // DNS failed (no such name, deadline): nothing was sent, but the attempt is still on record.
      await this.audit.failed(request.method, request.url, error);
      throw error;
    }
    if (!decision.allowed) {
      await this.audit.denied({ method: request.method, url: request.url, host: decision.host, stage: decision.stage, rule: decision.rule, reason: decision.reason });
      throw new PolicyViolationError(decision.host, this.options.category, decision.stage, decision.rule, decision.reason);
    }
    const deadline = begin();
    let response: Dispatcher.ResponseData;
    try {
      response = await this.gateway.pool.request({
        url: request.url,
        addresses: decision.addresses,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body as string | Uint8Array | Readable | null,
        timeoutMs: request.timeout,
        deadline,
      });
    } catch (error) {
      await this.audit.failed(request.method, request.url, error);
      throw error;
    }
    // Step 5, the cheap half: a declared size over the limit is refused without reading the body.
    const declared = request.method === 'HEAD' ? null : declaredOverLimit(response.headers['content-length'], this.maxResponseBytes);
    if (declared !== null) {
      const error = new ResponseTooLargeError(this.maxResponseBytes, declared);
      response.body.destroy(error);
      await this.deniedSize(request, error);
      throw error;
    }
    return { response, approved: decision.approved, deadline };
  }

  private askOperator(approval: Approver, denial: Denial, request: Outgoing): Promise<boolean> {
    return approval.approve({
      denial, method: request.method, url: request.url, sessionId: this.options.sessionId ?? null,
      taskId: this.options.taskId ?? null, requestId: this.options.requestId, signal: request.signal,
    });
  }

  private deniedSize(request: Outgoing, error: ResponseTooLargeError): Promise<void> {
    return this.audit.denied({
      method: request.method,
      url: request.url,
      host: hostOf(request.url),
      stage: 'size',
      rule: 'maxResponseBytes',
      reason: error.message,
    });
  }
}
