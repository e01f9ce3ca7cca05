import fc from 'fast-check';

/**
 * Hostile values for any field, query parameter or header: what a careless or malicious client
 * sends. Every arbitrary yields text or bytes, never a parsed value, so the generator can write what
 * `JSON.stringify` never would (duplicate keys, numbers past a double, nesting past the stack).
 */

const SPECIAL_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\uD800', '\uDFFF\uD800', '\u202Eevil', '\uFEFF', 'Ω≈ç√∫', '👩‍👩‍👧‍👦', '\r\n',
  '__proto__', 'constructor', 'prototype', '../../etc/passwd', '%00', '%zz', '%', '\\', "' OR 1=1 --", '"*', 'NEAR(a b)',
  'a AND b', 'a:b', '${jndi:ldap://x}', '<script>alert(1)</script>', 'null', 'true', '0', '-1', 'NaN', 'Infinity',
];

const NUMBER_TEXTS = [
  '0', '-0', '1', '-1', '1.5', '1e309', '-1e309', '1e-400', '123456789012345678901234567890', '9007199254740993',
  '2147483648', '4294967296', '1.7976931348623157e308', '0.0000000000000000000001', '1E2', '1e+2',
];

/** A short string of any kind: printable, full unicode (lone surrogates too), a known troublemaker. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
);

/** Text of a number, a numeric-looking string, or something in between. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NUMBER_TEXTS),
  fc.integer().map(String),
  fc.double().map((n) => (Number.isFinite(n) ? String(n) : '1e999')),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
);

/** Nesting `[[[…]]]` or `{"a":{"a":…}}` of a depth a recursive parser or walker could not survive. */
export const deepNesting: fc.Arbitrary<string> = fc.tuple(fc.constantFrom('array', 'object'), fc.constantFrom(50, 1_000, 20_000, 200_000)).map(([kind, depth]) =>
  kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
);

/** JSON text of one value: any JSON, a huge or odd number, a hostile string, deep nesting. */
export const jsonValueText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 3, arbitrary: hostileString.map((s) => JSON.stringify(s)) },
  { weight: 2, arbitrary: numberText },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null', '[]', '{}', '""') },
  { weight: 1, arbitrary: deepNesting },
);

/** JSON object text from key/value texts, keys may repeat (the last one wins in JSON.parse; a stricter parser may refuse). */
export function objectText(entries: fc.Arbitrary<[string, string][]>): fc.Arbitrary<string> {
  return entries.map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
}

/** Bytes that are not a JSON object: other JSON, broken JSON, text, raw bytes (invalid UTF-8, NULs), a BOM. */
export const notAnObjectBody: fc.Arbitrary<Buffer> = fc.oneof(
  jsonValueText.map((t) => Buffer.from(t)),
  fc.constantFrom('', '{', '{"a":', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', '\uFEFF{}', '{"a":1}\u0000', 'a=1&b=2', '--x\r\n\r\n--x--').map((t) => Buffer.from(t)),
  fc.string({ maxLength: 100 }).map((t) => Buffer.from(t)),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
);

/** Over the 1 MiB every listener allows: rarely generated, each costs a MiB on the wire. */
export const oversizeBody: fc.Arbitrary<Buffer> = fc.constantFrom(1024 * 1024 + 1, 3 * 1024 * 1024).map((n) => Buffer.alloc(n, 0x61));

/** Query parameter value, raw in the URL (maybe unencoded) or percent-encoded. */
export const queryValue: fc.Arbitrary<string> = fc.oneof(
  numberText,
  hostileString.map(percentEncode),
  fc.constantFrom('', '%', '%zz', '%00', '%FF', '+', 'a+b', '%E2%82', '1&', '[]', '=', '=='),
);

/** A value of a header: anything Node lets a client put on the wire (latin-1 without controls), short or huge. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 30, arbitrary: fc.string({ maxLength: 60 }).map((s) => s.replace(/[^\t\x20-\x7e]/g, '')) },
  { weight: 8, arbitrary: fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }) },
  // Past Node's 16 KiB of headers (431) now and then; more often would leave little else tested.
  { weight: 1, arbitrary: fc.constantFrom(4_000, 20_000, 70_000).map((n) => 'x'.repeat(n)) },
);

/** Percent-encodes every byte but the unreserved ones; total where encodeURIComponent throws on a lone surrogate. */
export function percentEncode(text: string): string {
  return [...Buffer.from(text)].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}
