import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/errors.js';
import type { RestPolicyConfig } from '../config/schema.js';
import { normalizePath, RestRules } from './rest-rules.js';

describe('normalizePath', () => {
  it.each([
    ['/repos/x', '/repos/x'],
    ['', '/'],
    ['/repos/%2e%2e/admin', '/admin'],
    ['/repos/%2E%2e/admin', '/admin'],
    ['/a/./b/../c', '/a/c'],
    ['/../../etc/passwd', '/etc/passwd'],
    ['/a/..', '/'],
    ['/a/.', '/a/'],
    ['/rep%6fs/x', '/repos/x'],
    ['/a%7eb', '/a~b'],
    ['/a%2fb', '/a%2Fb'],
    ['/a%20b', '/a%20b'],
    ['/a%252e%252e/b', '/a%252e%252e/b'],
  ])('%j → %j', (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });
});

function rules(...list: RestPolicyConfig[]): RestRules {
  return RestRules.fromConfig(list);
}

describe('RestRules', () => {
  const github = rules(
    { host: 'api.github.com', method: 'DELETE', path: '/**', action: 'deny' },
    { host: 'api.github.com', method: 'GET', path: '/repos/*/issues', action: 'allow' },
    { host: 'api.github.com', method: '*', path: '/admin/*', action: 'deny' },
    { host: 'API.GitHub.com', method: 'get', path: '/admin/readonly', action: 'allow' },
  );

  it('lets the first matching rule decide', () => {
    expect(github.evaluate('api.github.com', 'DELETE', '/repos/x/issues')).toEqual({ action: 'deny', rule: 'network.rest_policies[0]' });
    expect(github.evaluate('api.github.com', 'GET', '/repos/x/issues')).toEqual({ action: 'allow', rule: 'network.rest_policies[1]' });
    // Rule 3 would allow it, but rule 2 comes first.
    expect(github.evaluate('api.github.com', 'GET', '/admin/readonly')).toEqual({ action: 'deny', rule: 'network.rest_policies[2]' });
  });

  it('matches methods case-insensitively and `*` for any method', () => {
    expect(github.evaluate('api.github.com', 'delete', '/x')?.action).toBe('deny');
    expect(github.evaluate('api.github.com', 'PATCH', '/admin/x')?.action).toBe('deny');
  });

  it('returns null when nothing matches or the host has no rules', () => {
    expect(github.evaluate('api.github.com', 'GET', '/users/x')).toBeNull();
    expect(github.evaluate('example.com', 'DELETE', '/x')).toBeNull();
  });

  it('judges the normalised path, so dot segments cannot dodge a rule', () => {
    expect(github.evaluate('api.github.com', 'POST', '/public/%2e%2e/admin/users')?.action).toBe('deny');
    expect(github.evaluate('api.github.com', 'POST', '/%61dmin/users')?.action).toBe('deny');
  });

  it('matches patterns written as people read paths against the encoded request path', () => {
    const readable = rules(
      { host: 'files.example', method: 'GET', path: '/files/ü*', action: 'deny' },
      { host: 'files.example', method: 'GET', path: '/my docs/*', action: 'deny' },
      { host: 'files.example', method: 'GET', path: '/caf%c3%a9/*', action: 'deny' },
      { host: 'files.example', method: 'GET', path: '/%7Euser/*', action: 'deny' },
      { host: 'files.example', method: 'GET', path: '/**', action: 'allow' },
    );
    // Request paths as WHATWG URL parsing hands them over.
    const path = (p: string) => new URL(`http://files.example${p}`).pathname;
    expect(readable.evaluate('files.example', 'GET', path('/files/ü.txt'))?.rule).toBe('network.rest_policies[0]');
    expect(readable.evaluate('files.example', 'GET', path('/my docs/x'))?.rule).toBe('network.rest_policies[1]');
    expect(readable.evaluate('files.example', 'GET', path('/café/x'))?.rule).toBe('network.rest_policies[2]');
    expect(readable.evaluate('files.example', 'GET', path('/~user/x'))?.rule).toBe('network.rest_policies[3]');
    expect(readable.evaluate('files.example', 'GET', path('/other'))?.rule).toBe('network.rest_policies[4]');
    expect(() => rules({ host: 'a.example', method: 'GET', path: '/[ü]*', action: 'deny' })).toThrow(/rest_policies\[0\]\.path/);
  });

  it('refuses malformed rules with the key in the message', () => {
    const bad = (rule: Record<string, unknown>) => () => RestRules.fromConfig([rule as unknown as RestPolicyConfig]);
    expect(bad({ host: 'a.com', method: 'GET', path: '/x', action: 'maybe' })).toThrow(
      new ConfigError('network.rest_policies[0].action: "maybe" must be allow or deny'),
    );
    expect(bad({ host: 'a.com', method: 'G E T', path: '/x', action: 'allow' })).toThrow(/rest_policies\[0\]\.method/);
    expect(bad({ host: 'a.com', method: 'GET', path: 'x', action: 'allow' })).toThrow(/rest_policies\[0\]\.path/);
    expect(bad({ host: 'a.com:443', method: 'GET', path: '/x', action: 'allow' })).toThrow(/rest_policies\[0\]\.host/);
    expect(bad({ host: 'a b', method: 'GET', path: '/x', action: 'allow' })).toThrow(ConfigError);
  });
});
