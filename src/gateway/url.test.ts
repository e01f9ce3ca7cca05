import { describe, expect, it } from 'vitest';
import { InvalidUrlError } from './errors.js';
import { MAX_URL_LENGTH, redactUrl, targetUrl } from './url.js';

describe('targetUrl', () => {
  it('normalises the host as the WHATWG parser does', () => {
    expect(targetUrl('http://2130706433/a').hostname).toBe('127.0.0.1');
    expect(targetUrl('HTTPS://Example.COM:443/a#frag').href).toBe('https://example.com/a');
  });

  it('appends query options to an existing query', () => {
    expect(targetUrl('https://a.example/s?x=1', { q: 'two words', n: 3, flag: true, skip: undefined, list: ['a', 'b'] }).search).toBe(
      '?x=1&q=two+words&n=3&flag=true&list=a&list=b',
    );
    expect(targetUrl('https://a.example/s', new URLSearchParams({ k: 'v' })).search).toBe('?k=v');
  });

  it('accepts exactly the maximum length and refuses one more', () => {
    const base = 'http://a.example/';
    expect(targetUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length)).href).toHaveLength(MAX_URL_LENGTH);
    expect(() => targetUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length + 1))).toThrow(InvalidUrlError);
  });

  it.each([
    ['file:///etc/passwd', /scheme "file"/],
    ['ftp://a.example/', /scheme "ftp"/],
    ['gopher://a.example/', /scheme "gopher"/],
    ['data:text/plain,x', /scheme "data"/],
    ['dict://a.example/', /scheme "dict"/],
    ['javascript:alert(1)', /scheme "javascript"/],
    ['http://', /not a valid/],
    ['a.example/path', /not a valid/],
    ['http://user:pw@a.example/', /credentials/],
    ['http://user@a.example/', /credentials/],
    ['http://a.example:0/', /port 0/],
  ])('refuses %s', (url, message) => {
    expect(() => targetUrl(url)).toThrow(InvalidUrlError);
    expect(() => targetUrl(url)).toThrow(message);
  });
});

describe('redactUrl', () => {
  it.each([
    ['https://a.example/p?key=sk-123&q=x', 'https://a.example/p?key=[REDACTED]&q=[REDACTED]'],
    ['https://a.example/p?flag&token=abc', 'https://a.example/p?[REDACTED]&token=[REDACTED]'],
    ['https://api.example.com/v1?sk_live_abcdefabcdef', 'https://api.example.com/v1?[REDACTED]'],
    ['https://a.example/p', 'https://a.example/p'],
    ['https://a.example/p?', 'https://a.example/p'],
    ['https://user:pw@a.example:8443/p#frag', 'https://a.example:8443/p'],
    ['not a url?secret=1', 'not a url'],
    ['http://tok3n5ecretvalue@exa mple.com/x', 'http://exa mple.com/x'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});
