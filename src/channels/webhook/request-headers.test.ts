import { describe, expect, it } from 'vitest';
import { hasRequestBody, isJsonContentType, parseContentLength, pickWebhookHeaders } from './request-headers.js';

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    // Exactly that value: no parameters, no other case (docs/decisions.md#webhook-content-type-is-exact).
    ['application/json; charset=utf-8', false],
    ['application/json;charset=utf-8', false],
    ['Application/JSON', false],
    ['APPLICATION/JSON', false],
    ['application/json ; charset=UTF-8', false],
    ['application/json;', false],
    [undefined, false],
    ['', false],
    ['text/plain', false],
    ['application/vnd.api+json', false],
    ['application/ld+json', false],
    ['application/jsonp', false],
    ['application/json-patch+json', false],
    ['application/x-www-form-urlencoded', false],
    ['application/json garbage', false],
    ['multipart/form-data; boundary=x', false],
  ])('%j → %s', (value, expected) => {
    expect(isJsonContentType(value)).toBe(expected);
  });
});

describe('parseContentLength', () => {
  const max = 1024;
  it.each([
    [{}, { kind: 'missing' }],
    [{ 'transfer-encoding': 'chunked' }, { kind: 'missing' }],
    [{ 'content-length': '0' }, { kind: 'length', bytes: 0 }],
    [{ 'content-length': '1024' }, { kind: 'length', bytes: 1024 }],
    [{ 'content-length': '0001' }, { kind: 'length', bytes: 1 }],
    [{ 'content-length': '1025' }, { kind: 'too-large' }],
    [{ 'content-length': '9'.repeat(30) }, { kind: 'too-large' }],
    [{ 'content-length': '-1' }, { kind: 'invalid' }],
    [{ 'content-length': '1.5' }, { kind: 'invalid' }],
    [{ 'content-length': '+5' }, { kind: 'invalid' }],
    [{ 'content-length': ' 5' }, { kind: 'invalid' }],
    [{ 'content-length': 'abc' }, { kind: 'invalid' }],
    [{ 'content-length': '' }, { kind: 'invalid' }],
    [{ 'content-length': '5, 5' }, { kind: 'invalid' }],
  ])('%j → %j', (headers, expected) => {
    expect(parseContentLength(headers, max)).toEqual(expected);
  });
});

describe('hasRequestBody', () => {
  it.each([
    [{}, false],
    [{ 'content-length': '0' }, false],
    [{ 'content-length': '000' }, false],
    [{ 'content-length': '12' }, true],
    [{ 'transfer-encoding': 'chunked' }, true],
  ])('%j → %s', (headers, expected) => {
    expect(hasRequestBody(headers)).toBe(expected);
  });
});

describe('pickWebhookHeaders', () => {
  it('keeps only the four named headers, under their documented spelling', () => {
    const kept = pickWebhookHeaders({
      'content-type': 'application/json',
      'user-agent': 'ci/1.0',
      'x-request-id': 'req-1',
      'x-service-signature': 'sha256=ab',
      authorization: 'Bearer x',
      cookie: 'a=b',
      'x-forwarded-for': '10.0.0.1',
    });
    expect(kept).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': 'ci/1.0',
      'X-Request-Id': 'req-1',
      'X-Service-Signature': 'sha256=ab',
    });
  });

  it('omits headers that were not sent', () => {
    expect(pickWebhookHeaders({ 'content-type': 'application/json' })).toEqual({ 'Content-Type': 'application/json' });
  });
});
