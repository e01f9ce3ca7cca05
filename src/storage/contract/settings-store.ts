import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SettingsStore } from '../ports/settings.js';

/** The behaviour every `SettingsStore` backend must have; `reopen` opens the same database anew. */
export type OpenSettingsStore = () => Promise<{ store: SettingsStore; reopen(): Promise<SettingsStore>; close(): Promise<void> }>;

export function describeSettingsStore(backend: string, open: OpenSettingsStore): void {
  describe(`SettingsStore contract (${backend})`, () => {
    let settings: SettingsStore;
    let reopen: () => Promise<SettingsStore>;
    let close: () => Promise<void>;

    beforeEach(async () => {
      ({ store: settings, reopen, close } = await open());
    });
    afterEach(async () => {
      await close();
    });

    it('reads null for a key never set, and the last value set for one that was, also after reopening', async () => {
      expect(await settings.get('provider.default')).toBeNull();
      await settings.set('provider.default', 'anthropic', '2026-01-01T00:00:00.000Z');
      await settings.set('provider.default', 'openai', '2026-01-01T00:00:01.000Z');
      await settings.set('other', 'x', '2026-01-01T00:00:02.000Z');
      expect(await settings.get('provider.default')).toBe('openai');
      expect(await (await reopen()).get('provider.default')).toBe('openai');
      expect(await settings.get('other')).toBe('x');
    });
  });
}
