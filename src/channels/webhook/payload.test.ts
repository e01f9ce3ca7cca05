import { describe, expect, it } from 'vitest';
import { charCount, parsePayload } from './payload.js';

const parse = (text: string) => parsePayload(Buffer.from(text));

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
    ['not JSON', '{prompt:', 'Request body is not valid JSON'],
    ['empty body', '', 'Request body is not valid JSON'],
    ['array', '[]', 'Request body must be a JSON object'],
    ['null', 'null', 'Request body must be a JSON object'],
    ['number', '5', 'Request body must be a JSON object'],
    ['string', '"prompt"', 'Request body must be a JSON object'],
    ['missing prompt', '{"sender":"a"}', 'field "prompt" is required'],
    ['numeric prompt', '{"prompt":5}', 'field "prompt" must be a string'],
    ['null prompt', '{"prompt":null}', 'field "prompt" must be a string'],
    ['object prompt', '{"prompt":{"a":1}}', 'field "prompt" must be a string'],
    ['empty prompt', '{"prompt":""}', 'field "prompt" must not be empty'],
    ['whitespace prompt', '{"prompt":" \\n\\t "}', 'field "prompt" must not be empty'],
    ['numeric sender', '{"prompt":"x","sender":7}', 'field "sender" must be a string'],
    ['prompt inherited through __proto__', '{"__proto__":{"prompt":"x"}}', 'field "prompt" is required'],
  ])('400 for %s', (_name, text, error) => {
    expect(parse(text)).toEqual({ ok: false, status: 400, error });
  });

  it('400 for invalid UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('{"prompt":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    expect(parsePayload(bytes)).toEqual({ ok: false, status: 400, error: 'Request body is not valid UTF-8' });
  });

  it('accepts a prompt of exactly 32,000 characters and refuses 32,001 with 413', () => {
    expect(parse(JSON.stringify({ prompt: 'a'.repeat(32_000) })).ok).toBe(true);
    expect(parse(JSON.stringify({ prompt: 'a'.repeat(32_001) }))).toMatchObject({ ok: false, status: 413 });
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
