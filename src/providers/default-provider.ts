import type { SettingsStore } from '../storage/ports/settings.js';
import type { ProviderRegistry } from './registry.js';

/** The settings key under which the operator's choice is kept. */
export const DEFAULT_PROVIDER_SETTING = 'provider.default';

/**
 * The default provider as the operator last chose it (control `provider.set_default`), stored so
 * that a restart keeps it: the stored choice wins over `providers.default` in the config.
 */
export class DefaultProviderSetting {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly settings: SettingsStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** At start: applies the stored choice. Returns what the log should say about it, or null. */
  async restore(): Promise<{ level: 'info' | 'warn'; message: string } | null> {
    const stored = await this.settings.get(DEFAULT_PROVIDER_SETTING);
    if (stored === null || stored === this.registry.default) return null;
    try {
      const configured = this.registry.setDefault(stored);
      return { level: 'info', message: `default provider is '${stored}', chosen with provider.set_default (it overrides providers.default '${configured}' in the config)` };
    } catch (error) {
      return {
        level: 'warn',
        message: `the default provider '${stored}' chosen with provider.set_default cannot be used (${(error as Error).message}); ` +
          `'${this.registry.default}' from the config is the default until it can, or until another is chosen`,
      };
    }
  }

  /** Makes `name` the default, stored before it takes effect; throws when it cannot be used. */
  async set(name: string): Promise<{ previous: string; current: string }> {
    this.registry.resolve(name);
    await this.settings.set(DEFAULT_PROVIDER_SETTING, name, new Date(this.now()).toISOString());
    return { previous: this.registry.setDefault(name), current: name };
  }
}
