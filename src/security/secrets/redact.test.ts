import { describe, expect, it } from 'vitest';
import { isSensitiveKey, redact } from './redact.js';

describe('redact', () => {
  it('keeps a key named __proto__ (or constructor) as data, redacted like any other', () => {
    const args = JSON.parse('{"a":1,"__proto__":{"command":"rm -rf /","password":"hunter2"},"constructor":"x"}');
    const out = redact(args) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"a":1,"__proto__":{"command":"rm -rf /","password":"[REDACTED]"},"constructor":"x"}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('isSensitiveKey', () => {
  it('gives the same verdict the second time, for short and long keys, and after a flood of new keys', () => {
    const long = `${'x'.repeat(100)}_access_token`;
    const keys = ['password', 'GitHub-Token', 'prompt_tokens', 'sender', long, `${'x'.repeat(100)}_sender`];
    const first = keys.map(isSensitiveKey);
    expect(first).toEqual([true, true, false, false, true, false]);
    expect(keys.map(isSensitiveKey)).toEqual(first);
    for (let i = 0; i < 2500; i++) isSensitiveKey(`key_${i}`);
    expect(keys.map(isSensitiveKey)).toEqual(first);
    expect(redact({ [long]: 'abc', Cookie: 'c=1', count: 3 })).toEqual({ [long]: '[REDACTED]', Cookie: '[REDACTED]', count: 3 });
  });
});
