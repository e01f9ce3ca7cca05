import { describe, expect, it } from 'vitest';
import { previewOf } from './tool-preview.js';

describe('previewOf', () => {
  it('keeps short output whole, and cuts long output to the bound, flagged', () => {
    expect(previewOf('42', 10)).toEqual({ text: '42', truncated: false });
    expect(previewOf('abcdefghij', 10)).toEqual({ text: 'abcdefghij', truncated: false });
    expect(previewOf('abcdefghijk', 10)).toEqual({ text: 'abcdefghij', truncated: true });
  });

  it('censors a secret before cutting, so one straddling the bound leaves no part of it', () => {
    const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345';
    // Cut first, the preview would end in `sk-ant-api`: too short for the detector to know it.
    const preview = previewOf(`${'x'.repeat(20)} ${secret} and more`, 31);
    expect(preview).toEqual({ text: `${'x'.repeat(20)} [REDACTED]`, truncated: true });
  });

  it('shows every URL in the text without its credentials and query values, host and path kept', () => {
    const preview = previewOf('fetched https://user:pw@api.example.com/v1/items?token=abc123&page=2 and http://b.localhost:8080/x ok', 500);
    expect(preview.text).toBe('fetched https://api.example.com/v1/items?token=[REDACTED]&page=[REDACTED] and http://b.localhost:8080/x ok');
  });
});
