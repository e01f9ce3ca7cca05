import { describe, expect, it } from 'vitest';
import { evaluateDestination, type Denial } from '../policy/destination.js';
import { NetworkPolicy } from '../policy/network-policy.js';
import { isChannelSession, networkGrant, toolGrant } from './grant.js';

/** The grant of the denial the policy gives `url` (nothing is allowed, so the host stage refuses). */
async function grantOf(url: string, config = {}) {
  const decision = await evaluateDestination(NetworkPolicy.fromConfig(config), { url: new URL(url), method: 'GET', category: 'tool' });
  if (decision.allowed) throw new Error(`${url} was allowed`);
  return networkGrant(decision as Denial);
}

describe('what allow_session covers', () => {
  it('one origin in every spelling of it, and only that origin', async () => {
    const origin = 'http://b.example:18111';
    for (const url of ['http://b.example:18111/public', 'HTTP://B.Example:18111/x', 'http://b.example.:18111/', 'http://user:pw@b.example:18111/a?q=1#f']) {
      expect((await grantOf(url)).scope, url).toBe(origin);
    }
    expect((await grantOf('http://b.example/')).scope).toBe('http://b.example:80');
    expect((await grantOf('http://b.example:80/')).scope).toBe('http://b.example:80');
    expect((await grantOf('https://b.example/')).scope).toBe('https://b.example:443');
    expect((await grantOf('http://b.example:18112/')).scope).not.toBe(origin);
    // IDN: the look-alike is its punycode, never the ASCII name it imitates.
    expect((await grantOf('http://b.ex\u0430mple:18111/')).scope).toMatch(/^http:\/\/b\.xn--[a-z0-9-]+:18111$/);
    // IPv6 literals keep their brackets, so the port cannot be read as part of the address.
    expect((await grantOf('http://[2001:db8::1]:8080/')).scope).toBe('http://[2001:db8::1]:8080');
    expect((await grantOf('http://[2001:DB8:0:0::1]:8080/')).scope).toBe('http://[2001:db8::1]:8080');
  });

  it('a refusal by an explicit REST deny rule offers no session grant, and names the rule', async () => {
    const grant = await grantOf('https://api.example/admin/x', {
      allowed_hosts: ['api.example'], rest_policies: [{ host: 'api.example', method: '*', path: '/admin/**', action: 'deny' }],
    });
    expect(grant).toEqual({ scope: 'https://api.example:443', stage: 'rest', rule: 'network.rest_policies[0]', sessionAllowed: false });
  });

  it('a tool grant is the exact tool name; channel sessions are told from API sessions', () => {
    expect(toolGrant('calculator')).toEqual({ scope: 'calculator', stage: 'tool', rule: null, sessionAllowed: true });
    expect(isChannelSession('ses_AbC-12_x')).toBe(false);
    for (const id of ['job:j1', 'webhook:ci', 'webhook:ses_x', 'ses_x:y', 'ses_', 'SES_x', '__proto__', 'constructor']) expect(isChannelSession(id), id).toBe(true);
  });
});
