import { describe, expect, it } from 'vitest';
import { sanitizeSender } from './sender.js';

describe('sanitizeSender', () => {
  it.each([
    ['absent', undefined, 'webhook'],
    ['empty', '', 'webhook'],
    ['plain name', 'alice', 'alice'],
    ['every allowed punctuation mark', 'ci-bot_1.0 @host', 'ci-bot_1.0 @host'],
    ['email address', 'ops@example.com', 'ops@example.com'],
    ['markup stripped', '<script>alert(1)</script>', 'scriptalert1script'],
    ['newlines and tabs stripped', 'a\nb\r\tc', 'abc'],
    ['only disallowed characters', '!!!///', 'webhook'],
    ['shell metacharacters', 'x;rm -rf /$(id)`', 'xrm -rf id'],
    ['non-ASCII letters are not alphanumerics here', 'José Müller', 'Jos Mller'],
    ['Cyrillic look-alike removed', '\u0430dmin', 'dmin'],
    ['bidirectional override removed', 'abc\u202Edef', 'abcdef'],
    ['emoji only', '\u{1F600}\u{1F600}', 'webhook'],
    ['zero-width joiner removed', 'a\u200Db', 'ab'],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeSender(input)).toBe(expected);
  });

  it('caps at 64 characters', () => {
    expect(sanitizeSender('a'.repeat(100))).toBe('a'.repeat(64));
    expect(sanitizeSender('b'.repeat(64))).toBe('b'.repeat(64));
  });

  it('caps before stripping, as docs/webhook.md#body orders it', () => {
    // 64 stripped characters fill the cap, so the name after them never makes it in.
    expect(sanitizeSender('!'.repeat(64) + 'alice')).toBe('webhook');
    expect(sanitizeSender('!'.repeat(60) + 'alice')).toBe('alic');
  });

  it('counts code points, not UTF-16 units, for the cap', () => {
    // 63 emoji + "ab": the cap keeps the emoji and "a", stripping leaves "a".
    expect(sanitizeSender('\u{1F600}'.repeat(63) + 'ab')).toBe('a');
  });
});
