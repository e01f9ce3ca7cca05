import type { Config } from '../config/schema.js';
import { AnthropicProvider } from './anthropic.js';
import { ProviderUnavailableError, UnknownProviderError } from './errors.js';
import type { GatewayClientFactory } from '../contracts/gateway-port.js';
import type { HostedProviderOptions } from './hosted.js';
import { OfflineProvider } from './offline.js';
import { OpenAIProvider } from './openai.js';
import type { Provider } from './types.js';

export interface ProviderInfo {
  name: string;
  model: string;
  available: boolean;
  is_default: boolean;
}

export interface ProviderRegistryOptions {
  config: Pick<Config, 'providers'>;
  /** Environment the key variables are read from (`api_key_env`). */
  env: Readonly<Record<string, string | undefined>>;
  /** The gateway's client factory; hosted providers send every request through it (category `provider`). */
  gatewayClientFactory: GatewayClientFactory;
  /** Per-request limit for hosted providers, in milliseconds. */
  timeoutMs?: number;
  /** The service's log, for hosted providers' failed calls and the SDKs' warnings. */
  logger?: HostedProviderOptions['logger'];
}

/**
 * The providers the service knows, and which one answers when a request names none. The default
 * changes only through `setDefault` (the provider.set_default control); a per-request override is
 * resolved with `resolve(name)` and never touches it.
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, Provider>();
  private defaultName: string;

  constructor(providers: Provider[], defaultName: string) {
    for (const provider of providers) this.providers.set(provider.name, provider);
    if (!this.providers.has(defaultName)) throw new UnknownProviderError(defaultName, this.names());
    // An unavailable default is allowed at start (the key may be added later); resolve() explains it.
    this.defaultName = defaultName;
  }

  names(): string[] {
    return [...this.providers.keys()];
  }

  get default(): string {
    return this.defaultName;
  }

  get(name: string): Provider | undefined {
    return this.providers.get(name);
  }

  list(): ProviderInfo[] {
    return [...this.providers.values()].map((p) => ({
      name: p.name,
      model: p.model,
      available: p.available(),
      is_default: p.name === this.defaultName,
    }));
  }

  /** The named provider, or the default when `name` is empty; throws when it is unknown or unusable. */
  resolve(name?: string | null): Provider {
    const wanted = name ? name : this.defaultName;
    const provider = this.providers.get(wanted);
    if (!provider) throw new UnknownProviderError(wanted, this.names());
    const reason = provider.unavailableReason();
    if (reason !== null) throw new ProviderUnavailableError(wanted, reason);
    return provider;
  }

  /** Makes `name` the default; refuses unknown or unavailable providers. Returns the previous default. */
  setDefault(name: string): string {
    this.resolve(name);
    const previous = this.defaultName;
    this.defaultName = name;
    return previous;
  }
}

/** The registry from the config: `offline` always, plus `anthropic` and `openai` as configured. */
export function createProviderRegistry(options: ProviderRegistryOptions): ProviderRegistry {
  const { providers } = options.config;
  const shared = { env: options.env, clientFactory: options.gatewayClientFactory, timeoutMs: options.timeoutMs, logger: options.logger };
  return new ProviderRegistry(
    [
      new OfflineProvider(),
      new AnthropicProvider({ ...shared, config: providers.anthropic }),
      new OpenAIProvider({ ...shared, config: providers.openai }),
    ],
    providers.default,
  );
}
