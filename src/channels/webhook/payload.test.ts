import { describe, expect, it } from 'vitest';
import { charCount, parsePayload, type PayloadResult } from './payload.js';

const parse = (text: string) => parsePayload(Buffer.from(text));
/** Status, catalogue code and message of a refused payload. */
const refusal = (result: PayloadResult) =>
  result.ok ? null : { status: result.error.statusCode, code: result.error.code, error: result.error.message };

describe('parsePayload', () => {
  it('accepts an object with a prompt and defaults the sender', () => {
    expect(parse('{"prompt":"hello"}')).toEqual({ ok: true, prompt: 'hello', sender: 'webhook' });
  });

  it('sanitises the sender', () => {
    expect(parse('{"prompt":"hi","sender":"<b>ci</b>"}')).toEqual({ ok: true, prompt: 'hi', sender: 'bcib' });
  });

  it('treats a null sender as absent', () => {
    expect(parse('{"prompt":"hi","sender":null}')).toEqual({ ok: true, prompt: 'hi', sender: 'webhook' });
  });

  it.each([
    ['not JSON', '{prompt:', 'Request body is not valid JSON', 'AGENTD_BAD_REQUEST'],
    ['empty body', '', 'Request body is not valid JSON', 'AGENTD_BAD_REQUEST'],
    ['array', '[]', 'Request body must be a JSON object', 'AGENTD_VALIDATION'],
    ['null', 'null', 'Request body must be a JSON object', 'AGENTD_VALIDATION'],
    ['number', '5', 'Request body must be a JSON object', 'AGENTD_VALIDATION'],
    ['string', '"prompt"', 'Request body must be a JSON object', 'AGENTD_VALIDATION'],
    ['missing prompt', '{"sender":"a"}', 'field "prompt" is required', 'AGENTD_VALIDATION'],
    ['numeric prompt', '{"prompt":5}', 'field "prompt" must be a string', 'AGENTD_VALIDATION'],
    ['null prompt', '{"prompt":null}', 'field "prompt" must be a string', 'AGENTD_VALIDATION'],
    ['object prompt', '{"prompt":{"a":1}}', 'field "prompt" must be a string', 'AGENTD_VALIDATION'],
    ['empty prompt', '{"prompt":""}', 'field "prompt" must not be empty', 'AGENTD_VALIDATION'],
    ['whitespace prompt', '{"prompt":" \\n\\t "}', 'field "prompt" must not be empty', 'AGENTD_VALIDATION'],
    ['numeric sender', '{"prompt":"x","sender":7}', 'field "sender" must be a string', 'AGENTD_VALIDATION'],
    ['prompt inherited through __proto__', '{"__proto__":{"prompt":"x"}}', 'field "prompt" is required', 'AGENTD_VALIDATION'],
  ])('400 for %s', (_name, text, error, code) => {
    expect(refusal(parse(text))).toEqual({ status: 400, code, error });
  });

  it('400 for invalid UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('{"prompt":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    expect(refusal(parsePayload(bytes))).toEqual({ status: 400, code: 'AGENTD_BAD_REQUEST', error: 'Request body is not valid UTF-8' });
  });

  it.each([
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a sequence cut short at the end', [0xe2, 0x82]],
  ])('400 for %s', (_name, invalid) => {
    const bytes = Buffer.concat([Buffer.from('{"prompt":"x'), Buffer.from(invalid)]);
    expect(refusal(parsePayload(bytes))).toMatchObject({ status: 400, error: 'Request body is not valid UTF-8' });
  });

  it('drops a leading byte order mark, as a UTF-8 decoder does, and keeps one inside the prompt', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(parsePayload(Buffer.concat([bom, Buffer.from('{"prompt":"hi"}')]))).toMatchObject({ ok: true, prompt: 'hi' });
    expect(parsePayload(Buffer.from('{"prompt":"\uFEFFhi"}'))).toMatchObject({ ok: true, prompt: '\uFEFFhi' });
    expect(refusal(parsePayload(Buffer.concat([bom, bom, Buffer.from('{"prompt":"hi"}')])))).toMatchObject({ status: 400 });
  });

  it('accepts a prompt of exactly 32,000 characters and refuses 32,001 with 413', () => {
    expect(parse(JSON.stringify({ prompt: 'a'.repeat(32_000) })).ok).toBe(true);
    expect(refusal(parse(JSON.stringify({ prompt: 'a'.repeat(32_001) })))).toMatchObject({ status: 413, code: 'AGENTD_PAYLOAD_TOO_LARGE' });
  });

  it('counts an emoji as one character for the prompt limit', () => {
    expect(parse(JSON.stringify({ prompt: '\u{1F600}'.repeat(32_000) })).ok).toBe(true);
    expect(parse(JSON.stringify({ prompt: '\u{1F600}'.repeat(32_001) })).ok).toBe(false);
  });
});

describe('charCount', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['\u{1F600}\u{1F600}', 2],
    ['a\u{1F600}b', 3],
    ['\uD800\uD800', 2],
    ['\uDC00', 1],
  ])('%j → %d', (text, expected) => {
    expect(charCount(text)).toBe(expected);
  });
});
