import { describe, expect, it } from 'vitest';
import { ftsString, matchExpression, queryWords, scopeToken } from './turn-query.js';

describe('query words', () => {
  it('keeps letters and digits of any script and drops every operator character', () => {
    expect(queryWords('NEAR("a b" c*) -d e:f ^g {h} + AND')).toEqual(['NEAR', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'AND']);
    expect(queryWords('日本語 Ärger ärger 42')).toEqual(['日本語', 'Ärger', '42']);
    expect(queryWords('" * - : () ^')).toEqual([]);
  });

  it('writes each word as an FTS5 string, doubling quotes', () => {
    expect(ftsString('a"b')).toBe('"a""b"');
    expect(matchExpression(['near', 'x'])).toBe('body : "near" AND body : "x"');
    expect(matchExpression([], 'sess')).toBeNull();
  });

  it('names a session by one hex token, the form the store indexes', () => {
    expect(scopeToken('sess_A-1')).toBe('s736573735F412D31');
    expect(matchExpression(['x'], 'sess_A-1')).toBe('scope : "s736573735F412D31" AND body : "x"');
  });
});
