import { describe, expect, it } from 'vitest';
import { fnmatch, fnmatchToRegExp } from './fnmatch.js';

// Expected values are what Python's fnmatch.fnmatchcase returns for the same inputs.
describe('fnmatch (Python fnmatchcase semantics)', () => {
  it.each([
    // The four shapes docs/gateway.md#rest-rules names.
    ['/repos/x', '/repos/**', true],
    ['/repos/x/y/z', '/repos/**', true],
    ['/repos', '/repos/**', false],
    ['/repository/x', '/repos/**', false],
    ['/repos/x/issues', '/repos/*/issues', true],
    ['/repos/x/pulls', '/repos/*/issues', false],
    ['/anything/at/all', '/**', true],
    ['/', '/**', true],
    ['/api/v2/x', '/api/v2/*', true],
    ['/api/v3/x', '/api/v2/*', false],
    // `*` crosses `/`.
    ['/repos/a/b/issues', '/repos/*/issues', true],
    ['/api/v2/x/y', '/api/v2/*', true],
    // `?` is exactly one character, `/` included.
    ['/a/b', '/a?b', true],
    ['/ab', '/a?b', false],
    ['/axxb', '/a?b', false],
    // Sets, ranges and negation.
    ['/v1', '/v[0-9]', true],
    ['/vx', '/v[0-9]', false],
    ['/b', '/[!a]', true],
    ['/a', '/[!a]', false],
    ['/]', '/[]]', true],
    ['/-', '/[a-]', true],
    ['/m', '/[z-a]', false],
    ['/m', '/[!z-a]', true],
    ['/[', '/[', true],
    ['/[ab', '/[ab', true],
    // Anchored on both ends, case-sensitive.
    ['/repos/x/extra', '/repos/x', false],
    ['/prefix/repos/x', '/repos/x', false],
    ['/Repos/x', '/repos/*', false],
    // Everything else is literal, regular-expression syntax included.
    ['/a.b', '/a.b', true],
    ['/axb', '/a.b', false],
    ['/a+b', '/a+b', true],
    ['/(x)|y', '/(x)|y', true],
    ['/y', '/(x)|y', false],
    ['/a\\b', '/a\\b', true],
    ['/$^', '/$^', true],
    ['/line\nbreak', '/line*', true],
  ])('%j against %j → %s', (name, pattern, expected) => {
    expect(fnmatch(name, pattern)).toBe(expected);
  });

  it('produces an anchored expression that treats the pattern as data', () => {
    expect(fnmatchToRegExp('/a.b').source).toBe('^(?:\\/a\\.b)$');
    expect(fnmatchToRegExp('/x/***').source).toBe('^(?:\\/x\\/.*)$');
  });
});
