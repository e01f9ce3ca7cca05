import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/load.js';
import { KnownSecrets } from './known-secrets.js';

describe('the secrets the service knows by value', () => {
  const config = parseConfig({
    api: { api_key: 'service-key-0123456789' },
    webhook: { secret: 'hook-secret-abcdef' },
    approval_hash_key: 'h'.repeat(40),
    providers: { anthropic: { api_key_env: 'MY_ANTHROPIC', model: 'm' } },
    storage: { redis_url: 'redis://:redis-pass-xyz123@127.0.0.1:6379' },
    mcp: { servers: [{ name: 'files', command: '/usr/bin/true', env_allow: ['FILES_TOKEN', 'DEBUG'] }] },
  });
  const env = { MY_ANTHROPIC: 'anthropic-value-77aa88 ', FILES_TOKEN: 'mcp-token-secret-1', DEBUG: '1', UNNAMED: 'unnamed-value-123' };
  const secrets = KnownSecrets.fromConfig(config, env);

  it('masks the API key, webhook secret, hash key, URL passwords and the values of variables the config names (as set, and trimmed)', () => {
    const text = [
      'service-key-0123456789', 'hook-secret-abcdef', 'h'.repeat(40), 'redis-pass-xyz123', 'anthropic-value-77aa88', 'mcp-token-secret-1',
    ].join(' | ');
    expect(secrets.mask(text)).toBe(
      '[MASKED: api.api_key] | [MASKED: webhook.secret] | [MASKED: approval_hash_key] | [MASKED: storage.redis_url] | [MASKED: env MY_ANTHROPIC]| [MASKED: env FILES_TOKEN]',
    );
  });

  it('leaves variables the config does not name, and values too short to be secrets, alone', () => {
    expect(secrets.mask('unnamed-value-123 DEBUG=1 and 1+1')).toBe('unnamed-value-123 DEBUG=1 and 1+1');
  });

  it('masks the longest secret first, and treats regular-expression characters literally', () => {
    const nested = new KnownSecrets([{ name: 'short', value: 'abcdefgh' }, { name: 'long', value: 'xx-abcdefgh-yy' }, { name: 'regex', value: 'a.b*c+d?(e)' }]);
    expect(nested.mask('xx-abcdefgh-yy abcdefgh a.b*c+d?(e) aXbbcdde')).toBe('[MASKED: long] [MASKED: short] [MASKED: regex] aXbbcdde');
    expect(new KnownSecrets([]).mask('anything')).toBe('anything');
  });
});
