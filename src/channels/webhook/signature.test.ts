import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeSignature, signatureMatches } from './signature.js';

const secret = 'unit-test-secret';
const body = Buffer.from('{"prompt":"hello"}');
const hex = createHmac('sha256', secret).update(body).digest('hex');

describe('signatureMatches', () => {
  it('accepts the HMAC-SHA256 of the raw body', () => {
    expect(signatureMatches(secret, body, `sha256=${hex}`)).toBe(true);
  });

  it('accepts upper-case hex (the decoded bytes are compared)', () => {
    expect(signatureMatches(secret, body, `sha256=${hex.toUpperCase()}`)).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['bare hex without prefix', hex],
    ['other algorithm', `sha1=${hex}`],
    ['upper-case prefix', `SHA256=${hex}`],
    ['one byte short', `sha256=${hex.slice(0, 62)}`],
    ['one byte long', `sha256=${hex}00`],
    ['non-hex characters', `sha256=${'z'.repeat(64)}`],
    ['a non-hex last character', `sha256=${hex.slice(0, 63)}g`],
    ['a non-hex character in the middle', `sha256=${hex.slice(0, 31)}x${hex.slice(32)}`],
    ['a space in place of a digit', `sha256=${hex.slice(0, 63)} `],
    ['two signatures joined', `sha256=${hex}, sha256=${hex}`],
    ['last digit changed', `sha256=${hex.slice(0, 63)}${hex.endsWith('0') ? '1' : '0'}`],
  ])('refuses %s', (_name, header) => {
    expect(signatureMatches(secret, body, header)).toBe(false);
  });

  it('refuses a signature made with another secret', () => {
    expect(signatureMatches(secret, body, computeSignature('other-secret', body))).toBe(false);
  });

  it('refuses a signature of a different body', () => {
    expect(signatureMatches(secret, body, computeSignature(secret, '{"prompt":"hellO"}'))).toBe(false);
  });

  it('binds the timestamp into the signed payload when one is given', () => {
    const signed = computeSignature(secret, body, '1700000000');
    expect(signed).toBe(`sha256=${createHmac('sha256', secret).update(`1700000000.${body.toString()}`).digest('hex')}`);
    expect(signatureMatches(secret, body, signed, '1700000000')).toBe(true);
    expect(signatureMatches(secret, body, signed, '1700000001')).toBe(false);
    expect(signatureMatches(secret, body, signed)).toBe(false);
  });
});
