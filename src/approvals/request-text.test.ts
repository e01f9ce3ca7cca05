import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../security/canonical-json.js';
import { networkRequest, toolRequest } from './request-text.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the exact request an approval is bound to', () => {
  it('writes arguments as canonical JSON: keys sorted at every level, so key order never changes the hash', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[2,{"y":null,"z":1}]},"b":1}');
    expect(toolRequest('calc', { b: 1, a: 2 }).hash).toBe(toolRequest('calc', { a: 2, b: 1 }).hash);
    expect(toolRequest('calc', { a: 2 }).hash).not.toBe(toolRequest('calc', { a: 3 }).hash);
    expect(toolRequest('calc', { a: 2 })).toEqual({ text: 'calc {"a":2}', hash: sha256('calc {"a":2}'), scope: 'calc' });
  });

  it('shows a tool call with detected secrets and sensitive keys hidden, while the hash covers the exact arguments', () => {
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD';
    const request = toolRequest('web_fetch', { note: `use ${key}`, password: 'hunter2' });
    expect(request.text).not.toContain(key);
    expect(request.text).not.toContain('hunter2');
    expect(request.text).toContain('"password":');
    expect(request.hash).toBe(sha256(`web_fetch {"note":"use ${key}","password":"hunter2"}`));
  });

  it('normalises a URL (no credentials, no fragment) and shows its query values redacted', () => {
    const request = networkRequest('get', new URL('https://user:pw@Example.com:443/a/b?key=s3cret#frag'), 'example.com');
    expect(request).toEqual({
      text: 'GET https://example.com/a/b?key=[REDACTED]',
      hash: sha256('GET https://example.com/a/b?key=s3cret'),
      scope: 'example.com',
    });
    expect(networkRequest('GET', new URL('https://example.com/a?key=other'), 'example.com').hash).not.toBe(request.hash);
  });
});
