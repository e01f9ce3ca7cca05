import type { ProviderConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { ProviderUnavailableError } from './errors.js';
import { isSelfHosted, OFFICIAL_BASE_URLS, type HostedProviderName } from './endpoints.js';
import type { GatewayClientFactory, GatewayClientLike } from '../contracts/gateway-port.js';
import { requestBound } from './estimate.js';
import type { CompletionRequest, CompletionResult, PreparedCall, Provider } from './types.js';
import { toProviderError } from './upstream-errors.js';

export interface HostedProviderOptions {
  config: ProviderConfig;
  /** Environment to read the key variable from (the app passes the environment it loaded). */
  env: Readonly<Record<string, string | undefined>>;
  /** The gateway's client factory: every request is policy-checked and audited there. */
  clientFactory: GatewayClientFactory;
  /**
   * Per-request limit, a deadline for the whole call including a streamed body; the SDKs default
   * to ten minutes, far too long for a chat call.
   */
  timeoutMs?: number;
  /**
   * The service's log: failed calls are logged there, and the SDKs' warnings too (without it they
   * go to the SDKs' own console output).
   */
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** The logger shape both SDKs accept. */
export interface SdkLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

/** What the SDK call needs; the key never leaves this object except into the SDK client. */
export interface SendContext {
  fetch: GatewayClientLike['fetch'];
  apiKey: string;
  baseURL: string;
  timeoutMs: number;
  logger: SdkLogger | undefined;
}

/** Some OpenAI-compatible servers (Ollama) want no key, but the SDKs refuse to run without one. */
const PLACEHOLDER_KEY = 'unused';

/**
 * What the Anthropic and OpenAI providers share: availability from the key variable or a
 * self-hosted base_url, one gateway client per request (so audit events carry the session and
 * run; the connections are the gateway's pool, reused across requests), and error translation
 * that never lets the key through.
 */
export abstract class HostedProvider<Body extends object = object> implements Provider {
  protected readonly timeoutMs: number;
  private readonly sdkLogger: SdkLogger | undefined;

  constructor(
    readonly name: HostedProviderName,
    protected readonly options: HostedProviderOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.sdkLogger = options.logger && toSdkLogger(options.logger);
  }

  get model(): string {
    return this.options.config.model;
  }

  get baseURL(): string {
    return this.options.config.base_url ?? OFFICIAL_BASE_URLS[this.name];
  }

  /** The key from the environment, or null when the variable is unset or blank. */
  private apiKey(): string | null {
    const envName = this.options.config.api_key_env;
    const value = envName ? this.options.env[envName]?.trim() : undefined;
    return value ? value : null;
  }

  available(): boolean {
    return this.unavailableReason() === null;
  }

  unavailableReason(): string | null {
    if (this.apiKey() !== null || isSelfHosted(this.name, this.options.config)) return null;
    const envName = this.options.config.api_key_env;
    if (envName) return `set ${envName} in the environment (providers.${this.name}.api_key_env names it)`;
    return `set providers.${this.name}.api_key_env to the environment variable holding the API key, or providers.${this.name}.base_url to a self-hosted server`;
  }

  /**
   * Builds the request body first, so its bound is counted from the very bytes `send` posts; the
   * availability check comes before it, so an unusable provider holds no budget.
   */
  prepare(request: CompletionRequest): PreparedCall {
    const reason = this.unavailableReason();
    if (reason) throw new ProviderUnavailableError(this.name, reason);
    const body = this.build(request);
    return {
      bound: requestBound(body, request.messages.length, this.maxTokens),
      send: () => this.dispatch(request, body),
    };
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    return this.prepare(request).send();
  }

  /** `providers.<name>.max_tokens`: sent with every request, the bound of a call's output. */
  protected get maxTokens(): number {
    return this.options.config.max_tokens;
  }

  private async dispatch(request: CompletionRequest, body: Body): Promise<CompletionResult> {
    const apiKey = this.apiKey();
    const client = this.options.clientFactory({
      sessionId: request.sessionId ?? null,
      taskId: request.taskId ?? null,
      requestId: request.requestId,
      category: 'provider',
      timeout: this.timeoutMs,
    });
    try {
      return await this.send(body, request, {
        fetch: client.fetch,
        apiKey: apiKey ?? PLACEHOLDER_KEY,
        baseURL: this.baseURL,
        timeoutMs: this.timeoutMs,
        logger: this.sdkLogger,
      });
    } catch (err) {
      const context = this.errorContext(request, apiKey);
      const failure = toProviderError(this.name, err, context);
      // The operator's record of the failure: the host and the cause (connection, TLS, status, …);
      // the message is already scrubbed of the key.
      if (failure.kind !== 'cancelled') {
        this.options.logger?.warn(`provider '${this.name}' request to ${context.host} failed (${failure.kind}): ${failure.message}`, { request_id: request.requestId });
      }
      throw failure;
    } finally {
      await client.close();
    }
  }

  private errorContext(request: CompletionRequest, apiKey: string | null) {
    let host = this.baseURL;
    try {
      host = new URL(this.baseURL).host;
    } catch {
      // keep the configured text
    }
    return { host, apiKey, keyEnv: this.options.config.api_key_env, signal: request.signal };
  }

  /** The request body in the vendor's shape, `max_tokens` included; throws for a request it cannot send. */
  protected abstract build(request: CompletionRequest): Body;
  /** Posts `body`, exactly as built, through the SDK. */
  protected abstract send(body: Body, request: CompletionRequest, context: SendContext): Promise<CompletionResult>;
}

/** Adapts the app's logger (info/warn/error, censored) to the SDKs' logger; debug output is dropped. */
function toSdkLogger(logger: Pick<Logger, 'info' | 'warn' | 'error'>): SdkLogger {
  const text = (value: unknown) => {
    if (typeof value === 'string') return value;
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  };
  const line = (message: string, rest: unknown[]) => [message, ...rest.map(text)].join(' ');
  return {
    error: (m, ...rest) => logger.error(line(m, rest)),
    warn: (m, ...rest) => logger.warn(line(m, rest)),
    info: (m, ...rest) => logger.info(line(m, rest)),
    debug: () => {},
  };
}
