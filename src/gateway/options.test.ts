import { describe, expect, it } from 'vitest';
import { allowedOptions, encodeBody, outgoingHeaders, timeoutOf } from './options.js';
import { collectingLogger } from '../../test/helpers/log.js';

describe('allowedOptions', () => {
  it('keeps the allowlist and logs the names (never the values) of everything else', () => {
    const lines: string[] = [];
    const signal = AbortSignal.timeout(1000);
    const kept = allowedOptions(
      { headers: { a: '1' }, query: { q: 'x' }, body: 'b', timeout: 5, signal, verify: false, rejectUnauthorized: false, dispatcher: { secret: 'hunter2' }, maxRedirections: 5 },
      collectingLogger(lines),
    );
    expect(kept).toEqual({ headers: { a: '1' }, query: { q: 'x' }, body: 'b', timeout: 5, signal });
    expect(lines).toEqual(['gateway: dropped request option(s) not on the allowlist: verify, rejectUnauthorized, dispatcher, maxRedirections']);
    expect(lines.join('')).not.toContain('hunter2');
  });

  it('logs nothing when nothing is dropped', () => {
    const lines: string[] = [];
    allowedOptions({ json: {} }, collectingLogger(lines));
    allowedOptions(undefined, collectingLogger(lines));
    expect(lines).toEqual([]);
  });
});

describe('outgoingHeaders', () => {
  it('lower-cases names, keeps repeats, and removes the headers the gateway owns', () => {
    const { headers, dropped } = outgoingHeaders({ 'X-One': '1', Host: 'internal.example', Connection: 'close', 'Accept-Encoding': 'gzip', 'x-list': ['a', 'b'] });
    expect(headers).toEqual({ 'x-one': '1', 'x-list': ['a', 'b'], 'accept-encoding': 'identity' });
    expect(dropped).toEqual(['host', 'connection']);
  });

  it('reads Headers objects and entry lists', () => {
    expect(outgoingHeaders(new Headers({ 'X-A': '1' })).headers).toMatchObject({ 'x-a': '1' });
    expect(outgoingHeaders([['X-B', '2']]).headers).toMatchObject({ 'x-b': '2' });
  });
});

describe('encodeBody', () => {
  it('serialises json with a content type, unless one was given', () => {
    const headers: Record<string, string> = {};
    expect(encodeBody({ json: { a: 1 } }, headers)).toBe('{"a":1}');
    expect(headers['content-type']).toBe('application/json');
    const custom = { 'content-type': 'application/vnd.x+json' };
    encodeBody({ json: [] }, custom);
    expect(custom['content-type']).toBe('application/vnd.x+json');
  });

  it('passes text and bytes, encodes forms, refuses both body and json', () => {
    expect(encodeBody({ body: 'x' }, {})).toBe('x');
    expect(encodeBody({ body: new Uint8Array([1]) }, {})).toEqual(new Uint8Array([1]));
    expect(encodeBody({ body: new ArrayBuffer(2) }, {})).toEqual(new Uint8Array(2));
    expect(encodeBody({ body: new URLSearchParams({ a: 'b c' }) }, {})).toBe('a=b+c');
    expect(encodeBody({}, {})).toBeNull();
    expect(() => encodeBody({ body: 'x', json: {} }, {})).toThrow(TypeError);
  });
});

describe('timeoutOf', () => {
  it('falls back to the client timeout and refuses nonsense', () => {
    expect(timeoutOf(undefined, 30_000)).toBe(30_000);
    expect(timeoutOf(250, 30_000)).toBe(250);
    for (const bad of [0, -1, Number.NaN, Infinity, '5']) expect(() => timeoutOf(bad, 1)).toThrow(TypeError);
  });
});
