import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

describe('redact', () => {
  it('keeps a key named __proto__ (or constructor) as data, redacted like any other', () => {
    const args = JSON.parse('{"a":1,"__proto__":{"command":"rm -rf /","password":"hunter2"},"constructor":"x"}');
    const out = redact(args) as Record<string, unknown>;
    expect(JSON.stringify(out)).toBe('{"a":1,"__proto__":{"command":"rm -rf /","password":"[REDACTED]"},"constructor":"x"}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
