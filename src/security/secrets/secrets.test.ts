import { describe, expect, it } from 'vitest';
import { censor, detectSecrets } from './secrets.js';
import { isSensitiveKey, redact } from './redact.js';

const SECRETS: [string, string][] = [
  ['anthropic', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
  ['openai', 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345'],
  ['openai legacy', 'sk-AbCdEfGhIjKlMnOpQrStUvWxYz012345'],
  ['aws access key', 'AKIAIOSFODNN7EXAMPLE'],
  ['github classic', 'ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ'],
  ['github fine-grained', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'],
  ['gitlab', 'glpat-abcdefghij0123456789'],
  ['npm', 'npm_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ'],
  ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ['google', 'AIzaSyA-abcdefghijklmnopqrstuvwxyz01234'],
];

describe('secret detector', () => {
  it.each(SECRETS)('censors a %s key in running text', (_name, secret) => {
    const text = `here is the value ${secret} for you`;
    const out = censor(text);
    expect(out).not.toContain(secret);
    expect(out).toBe('here is the value [REDACTED] for you');
  });

  it('censors credentials in context', () => {
    expect(censor('Authorization: Bearer abcdefghijklmnop0123456789')).toBe('Authorization: Bearer [REDACTED]');
    expect(censor('Basic dXNlcjpwYXNzd29yZDEyMw==')).toBe('Basic [REDACTED]');
    expect(censor('postgres://admin:s3cretPass@db.internal:5432/app')).toBe('postgres://admin:[REDACTED]@db.internal:5432/app');
    expect(censor('password=hunter22 and api_key: "abcd1234efgh"')).toBe('password=[REDACTED] and api_key: "[REDACTED]"');
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----';
    expect(censor(`key:\n${pem}\nend`)).toBe('key:\n[REDACTED]\nend');
  });

  it('leaves ordinary prose alone', () => {
    for (const text of [
      'task-based skeleton for the desk', 'ask-anthropic about sk-ant', 'the password field is required',
      'Bearer token auth is preferred', 'tokens used: 1234', 'https://example.com/path?x=1', 'AKIA is a prefix',
    ]) {
      expect(detectSecrets(text)).toEqual([]);
      expect(censor(text)).toBe(text);
    }
  });
});

describe('key-based redaction', () => {
  it('matches sensitive keys case-, dash- and underscore-insensitively and as a suffix', () => {
    for (const key of ['api_key', 'API-KEY', 'apiKey', 'password', 'github_token', 'Authorization', 'csrf_token', 'private_key', 'client_secret', 'Cookie']) {
      expect(isSensitiveKey(key), key).toBe(true);
    }
    for (const key of ['prompt_tokens', 'completion_tokens', 'tokenizer', 'author', 'keyboard', 'session_id']) {
      expect(isSensitiveKey(key), key).toBe(false);
    }
  });

  it('replaces values under sensitive keys, keeps numbers, censors strings everywhere', () => {
    const out = redact({
      api_key: 'abc', nested: { github_token: 'ghp_x', list: ['sk-ant-api03-AbCdEfGhIjKlMnOp', 'fine'] },
      prompt_tokens: 120, token: 42, password: true, note: 'contains sk-ant-api03-ZZZZZZZZZZZZZZZZ here',
    });
    expect(out).toEqual({
      api_key: '[REDACTED]', nested: { github_token: '[REDACTED]', list: ['[REDACTED]', 'fine'] },
      prompt_tokens: 120, token: 42, password: true, note: 'contains [REDACTED] here',
    });
  });
});
