import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { ProviderUnavailableError, UnknownProviderError } from './errors.js';
import { createProviderRegistry } from './registry.js';

/** No request leaves these tests: any attempt to build a gateway client fails the test. */
const noNetwork = () => {
  throw new Error('unexpected network use');
};

function registry(providers: Record<string, unknown> = {}, env: Record<string, string | undefined> = {}) {
  const config = configSchema.parse({ providers });
  return createProviderRegistry({ config, env, gatewayClientFactory: noNetwork });
}

describe('ProviderRegistry', () => {
  it('defaults to offline with the hosted providers listed but unavailable without keys', () => {
    const r = registry();
    expect(r.default).toBe('offline');
    expect(r.list()).toEqual([
      { name: 'offline', model: 'offline', available: true, is_default: true },
      { name: 'anthropic', model: 'claude-sonnet-5', available: false, is_default: false },
      { name: 'openai', model: 'gpt-4.1-mini', available: false, is_default: false },
    ]);
    expect(r.resolve().name).toBe('offline');
    expect(r.resolve('').name).toBe('offline');
  });

  it('makes a hosted provider available when its key variable is set and non-empty', () => {
    expect(registry({}, { ANTHROPIC_API_KEY: 'sk-ant-x' }).get('anthropic')!.available()).toBe(true);
    expect(registry({}, { ANTHROPIC_API_KEY: '   ' }).get('anthropic')!.available()).toBe(false);
    expect(registry({}, { ANTHROPIC_API_KEY: '' }).get('anthropic')!.available()).toBe(false);
    expect(registry({}, { OPENAI_API_KEY: 'sk-x' }).get('openai')!.available()).toBe(true);
    const custom = registry({ openai: { api_key_env: 'MY_OPENAI', model: 'gpt-4o' } }, { OPENAI_API_KEY: 'sk-x' });
    expect(custom.get('openai')!.available()).toBe(false);
    expect(custom.get('openai')!.unavailableReason()).toMatch(/set MY_OPENAI/);
  });

  it('makes a self-hosted base_url provider available without any key', () => {
    const r = registry({ openai: { api_key_env: null, model: 'llama3.1', base_url: 'http://127.0.0.1:11434/v1' } });
    expect(r.get('openai')!.available()).toBe(true);
    expect(r.resolve('openai').model).toBe('llama3.1');
  });

  it('still wants the key when base_url is the vendor API itself', () => {
    const r = registry({ openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4o', base_url: 'https://api.openai.com/v1' } });
    expect(r.get('openai')!.available()).toBe(false);
  });

  it('throws typed errors that say how to fix the problem', () => {
    const r = registry();
    expect(() => r.resolve('gemini')).toThrow(UnknownProviderError);
    expect(() => r.resolve('gemini')).toThrow("unknown provider 'gemini': known providers are offline, anthropic, openai");
    expect(() => r.resolve('anthropic')).toThrow(ProviderUnavailableError);
    expect(() => r.resolve('anthropic')).toThrow(/provider 'anthropic' is not available: set ANTHROPIC_API_KEY/);
    const none = registry({ anthropic: { api_key_env: null, model: 'claude-haiku-4-5' } });
    expect(() => none.resolve('anthropic')).toThrow(/providers\.anthropic\.api_key_env/);
  });

  it('accepts an unavailable configured default at start but explains it on use', () => {
    const r = registry({ default: 'anthropic' });
    expect(r.default).toBe('anthropic');
    expect(() => r.resolve()).toThrow(ProviderUnavailableError);
    expect(() => registry({ default: 'nope' })).toThrow(UnknownProviderError);
  });

  it('resolves a per-request override without changing the default', () => {
    const r = registry({}, { OPENAI_API_KEY: 'sk-x' });
    expect(r.resolve('openai').name).toBe('openai');
    expect(r.default).toBe('offline');
    expect(r.resolve().name).toBe('offline');
    expect(r.list().find((p) => p.is_default)!.name).toBe('offline');
  });

  it('changes the default only to a known, available provider', () => {
    const r = registry({}, { OPENAI_API_KEY: 'sk-x' });
    expect(r.setDefault('openai')).toBe('offline');
    expect(r.default).toBe('openai');
    expect(r.resolve().name).toBe('openai');
    expect(() => r.setDefault('anthropic')).toThrow(ProviderUnavailableError);
    expect(() => r.setDefault('gemini')).toThrow(UnknownProviderError);
    expect(r.default).toBe('openai');
  });

  it('never puts a key into a message or the listing', () => {
    const key = 'sk-ant-secret-value-0123456789';
    const r = registry({}, { ANTHROPIC_API_KEY: key });
    expect(JSON.stringify(r.list())).not.toContain(key);
    const unavailable = registry({ anthropic: { api_key_env: 'OTHER', model: 'claude-haiku-4-5' } }, { ANTHROPIC_API_KEY: key });
    expect(() => unavailable.resolve('anthropic')).toThrow(/OTHER/);
  });
});
