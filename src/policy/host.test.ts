import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/errors.js';
import { hostOf, parseDomainEntry, parseHostEntry } from './host.js';

describe('hostOf', () => {
  it.each([
    ['http://EXAMPLE.com/', 'example.com'],
    ['http://example.com./', 'example.com'],
    ['http://[::1]:8080/', '::1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://user@evil.example/', 'evil.example'],
    ['http://bücher.example/', 'xn--bcher-kva.example'],
  ])('%s → %s', (url, host) => {
    expect(hostOf(new URL(url))).toBe(host);
  });
});

describe('parseHostEntry', () => {
  it.each([
    ['api.openai.com', 'api.openai.com', null],
    ['API.OpenAI.com', 'api.openai.com', null],
    ['localhost:11434', 'localhost', 11434],
    ['127.0.0.1:11434', '127.0.0.1', 11434],
    ['[::1]:8080', '::1', 8080],
    ['[::1]', '::1', null],
    ['::1', '::1', null],
    ['2130706433', '127.0.0.1', null],
  ])('%s → host %s, port %s', (text, host, port) => {
    expect(parseHostEntry(text, 'k')).toMatchObject({ host, port, rule: 'k' });
  });

  it.each(['', 'a b', 'http://x.com', 'x.com/path', 'x.com:0', 'x.com:65536', 'x.com:port', 'user@x.com', '*.x.com', '[::1', '[::1]x', 'a:1:2', '[example.com]'])('rejects %j naming the key', (text) => {
    expect(() => parseHostEntry(text, 'network.allowed_hosts[4]')).toThrow(ConfigError);
    expect(() => parseHostEntry(text, 'network.allowed_hosts[4]')).toThrow(/^network\.allowed_hosts\[4\]: /);
  });
});

describe('parseDomainEntry', () => {
  it('reads exact and wildcard domains', () => {
    expect(parseDomainEntry('Example.com', 'k')).toEqual({ domain: 'example.com', wildcard: false, rule: 'k' });
    expect(parseDomainEntry('*.example.com', 'k')).toEqual({ domain: 'example.com', wildcard: true, rule: 'k' });
  });

  it.each([
    ['*.com', /too broad/],
    ['10.0.0.1', /is an IP address/],
    ['example.com:443', /is not a domain/],
    ['a.*.example.com', /is not a domain/],
    ['*example.com', /is not a domain/],
    ['', /is not a domain/],
  ])('rejects %j', (text, message) => {
    expect(() => parseDomainEntry(text, 'network.allowed_domains[0]')).toThrow(message);
  });
});
