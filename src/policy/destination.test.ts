import { describe, expect, it } from 'vitest';
import type { NetworkConfig } from '../config/schema.js';
import { evaluateDestination, type DestinationDecision } from './destination.js';
import { NetworkPolicy, type GatewayCategory } from './network-policy.js';

interface Case {
  url: string;
  config: Partial<NetworkConfig>;
  category?: GatewayCategory;
  method?: string;
  /** What the fake DNS answers; a name missing here must never be looked up. */
  dns?: Record<string, string[]>;
  allowed: boolean;
  stage?: 'host' | 'rest' | 'address';
  /** Substring of the deciding rule (allowed) or of the reason (denied). */
  why?: string;
}

const PUBLIC = ['93.184.216.34'];
const open = { default_deny: false } as const;

const cases: [string, Case][] = [
  // Default: nothing configured denies everything, without a DNS query.
  ['default policy denies a public name', { url: 'https://api.openai.com/v1', config: {}, allowed: false, stage: 'host' }],
  ['exact host', { url: 'https://api.openai.com/v1', config: { allowed_hosts: ['api.openai.com'] }, dns: { 'api.openai.com': PUBLIC }, allowed: true, why: 'allowed_hosts[0]' }],
  ['hosts are case-insensitive', { url: 'https://API.OpenAI.COM/', config: { allowed_hosts: ['Api.OpenAI.com'] }, dns: { 'api.openai.com': PUBLIC }, allowed: true }],
  ['host:port allows that port', { url: 'https://example.com:8443/', config: { allowed_hosts: ['example.com:8443'] }, dns: { 'example.com': PUBLIC }, allowed: true }],
  ['host:port refuses another port', { url: 'https://example.com/', config: { allowed_hosts: ['example.com:8443'] }, allowed: false, stage: 'host' }],
  ['host:port matches the scheme default port', { url: 'http://example.com/', config: { allowed_hosts: ['example.com:80'] }, dns: { 'example.com': PUBLIC }, allowed: true }],
  ['a host is not its subdomains', { url: 'https://www.example.com/', config: { allowed_hosts: ['example.com'] }, allowed: false, stage: 'host' }],
  ['trailing root dot is the same host', { url: 'https://api.openai.com./', config: { allowed_hosts: ['api.openai.com'] }, dns: { 'api.openai.com': PUBLIC }, allowed: true }],
  // Domains.
  ['exact domain', { url: 'https://example.com/', config: { allowed_domains: ['example.com'] }, dns: { 'example.com': PUBLIC }, allowed: true, why: 'allowed_domains[0]' }],
  ['exact domain excludes subdomains', { url: 'https://a.example.com/', config: { allowed_domains: ['example.com'] }, allowed: false, stage: 'host' }],
  ['wildcard covers a subdomain', { url: 'https://a.example.com/', config: { allowed_domains: ['*.example.com'] }, dns: { 'a.example.com': PUBLIC }, allowed: true }],
  ['wildcard covers the domain itself', { url: 'https://example.com/', config: { allowed_domains: ['*.example.com'] }, dns: { 'example.com': PUBLIC }, allowed: true }],
  ['wildcard covers deep subdomains', { url: 'https://a.b.example.com/', config: { allowed_domains: ['*.example.com'] }, dns: { 'a.b.example.com': PUBLIC }, allowed: true }],
  ['wildcard is not a suffix match', { url: 'https://badexample.com/', config: { allowed_domains: ['*.example.com'] }, allowed: false, stage: 'host' }],
  ['wildcard does not match as a prefix', { url: 'https://example.com.evil.net/', config: { allowed_domains: ['*.example.com'] }, allowed: false, stage: 'host' }],
  // Categories.
  ['provider list serves providers', { url: 'https://llm.internal.example/', category: 'provider', config: { provider_allowed_hosts: ['llm.internal.example'] }, dns: { 'llm.internal.example': PUBLIC }, allowed: true, why: 'provider_allowed_hosts[0]' }],
  ['provider list does not serve tools', { url: 'https://llm.internal.example/', category: 'tool', config: { provider_allowed_hosts: ['llm.internal.example'] }, allowed: false, stage: 'host', why: 'category tool' }],
  ['tool list serves tools', { url: 'https://docs.example.org/', category: 'tool', config: { tool_allowed_hosts: ['docs.example.org'] }, dns: { 'docs.example.org': PUBLIC }, allowed: true }],
  ['discord list serves discord', { url: 'https://discord.com/api', category: 'discord', config: { discord_allowed_hosts: ['discord.com'] }, dns: { 'discord.com': PUBLIC }, allowed: true }],
  ['discord list does not serve providers', { url: 'https://discord.com/api', category: 'provider', config: { discord_allowed_hosts: ['discord.com'] }, allowed: false, stage: 'host' }],
  ['general list serves every category', { url: 'https://example.com/', category: 'discord', config: { allowed_hosts: ['example.com'] }, dns: { 'example.com': PUBLIC }, allowed: true }],
  // Presets.
  ['anthropic preset', { url: 'https://api.anthropic.com/v1/messages', config: { presets: ['anthropic'] }, dns: { 'api.anthropic.com': PUBLIC }, allowed: true, why: 'preset:anthropic' }],
  ['github preset', { url: 'https://api.github.com/repos', config: { presets: ['github'] }, dns: { 'api.github.com': PUBLIC }, allowed: true }],
  ['ollama preset: 127.0.0.1:11434', { url: 'http://127.0.0.1:11434/api/tags', config: { presets: ['ollama'] }, allowed: true, why: 'preset:ollama' }],
  ['ollama preset: localhost:11434 without DNS', { url: 'http://localhost:11434/api/tags', config: { presets: ['ollama'] }, allowed: true }],
  // An unlisted loopback literal is refused by the address rules (judged first, never put to an operator).
  ['ollama preset: not another loopback port', { url: 'http://127.0.0.1:8080/', config: { presets: ['ollama'] }, allowed: false, stage: 'address', why: 'loopback address 127.0.0.1' }],
  ['ollama preset: not [::1] (not listed)', { url: 'http://[::1]:11434/', config: { presets: ['ollama'] }, allowed: false, stage: 'address', why: 'loopback address ::1' }],
  // DNS answers are checked, every one of them.
  ['listed name rebinding to loopback', { url: 'https://api.openai.com/', config: { allowed_hosts: ['api.openai.com'] }, dns: { 'api.openai.com': ['127.0.0.1'] }, allowed: false, stage: 'address', why: 'loopback address 127.0.0.1' }],
  ['one private answer among public ones', { url: 'https://example.com/', config: { allowed_domains: ['example.com'] }, dns: { 'example.com': ['93.184.216.34', '10.0.0.1'] }, allowed: false, stage: 'address', why: 'private address 10.0.0.1' }],
  ['listed name resolving to metadata', { url: 'https://example.com/', config: { allowed_hosts: ['example.com'] }, dns: { 'example.com': ['169.254.169.254'] }, allowed: false, stage: 'address', why: 'metadata' }],
  ['listed name resolving to mapped loopback', { url: 'https://example.com/', config: { allowed_hosts: ['example.com'] }, dns: { 'example.com': ['::ffff:127.0.0.1'] }, allowed: false, stage: 'address', why: 'loopback address 127.0.0.1' }],
  ['listed name resolving to ULA', { url: 'https://example.com/', config: { allowed_hosts: ['example.com'] }, dns: { 'example.com': ['fd00::5'] }, allowed: false, stage: 'address', why: 'ula' }],
  ['private answer inside allowed_cidrs', { url: 'https://nas.example/', config: { allowed_hosts: ['nas.example'], allowed_cidrs: ['10.0.0.0/8'] }, dns: { 'nas.example': ['10.1.2.3'] }, allowed: true }],
  ['mapped answer inside allowed_cidrs', { url: 'https://nas.example/', config: { allowed_hosts: ['nas.example'], allowed_cidrs: ['10.0.0.0/8'] }, dns: { 'nas.example': ['::ffff:10.0.0.7'] }, allowed: true }],
  ['allowed_cidrs never lets an unlisted name query DNS', { url: 'https://nas.example/', config: { allowed_cidrs: ['10.0.0.0/8'] }, allowed: false, stage: 'host' }],
  // Literal addresses, in every spelling the URL parser accepts.
  ['literal listed private address', { url: 'http://10.0.0.5/', config: { allowed_hosts: ['10.0.0.5'] }, allowed: true }],
  ['literal inside allowed_cidrs', { url: 'http://192.168.1.20/', config: { allowed_cidrs: ['192.168.1.0/24'] }, allowed: true, why: 'allowed_cidrs[0]' }],
  ['literal public inside allowed_cidrs', { url: 'http://8.8.8.8/', config: { allowed_cidrs: ['8.8.8.0/24'] }, allowed: true }],
  ['literal outside allowed_cidrs', { url: 'http://192.168.2.20/', config: { allowed_cidrs: ['192.168.1.0/24'] }, allowed: false, stage: 'address', why: 'private address 192.168.2.20' }],
  ['decimal IPv4 is loopback', { url: 'http://2130706433/', config: open, allowed: false, stage: 'address', why: 'loopback address 127.0.0.1' }],
  ['hex IPv4 is loopback', { url: 'http://0x7f.1/', config: open, allowed: false, stage: 'address', why: 'loopback' }],
  ['octal IPv4 is loopback', { url: 'http://0177.0.0.1/', config: open, allowed: false, stage: 'address', why: 'loopback' }],
  ['decimal form of a listed literal', { url: 'http://2130706433:11434/', config: { presets: ['ollama'] }, allowed: true }],
  ['IPv4-mapped IPv6 loopback', { url: 'http://[::ffff:127.0.0.1]/', config: open, allowed: false, stage: 'address', why: 'loopback address 127.0.0.1' }],
  ['IPv4-mapped IPv6 metadata', { url: 'http://[::ffff:169.254.169.254]/', config: open, allowed: false, stage: 'address', why: 'metadata' }],
  ['NAT64 form of metadata', { url: 'http://[64:ff9b::a9fe:a9fe]/', config: open, allowed: false, stage: 'address', why: 'metadata' }],
  ['userinfo hides a loopback host', { url: 'http://api.openai.com@127.0.0.1/', config: { allowed_hosts: ['api.openai.com'] }, allowed: false, stage: 'address', why: '127.0.0.1' }],
  ['userinfo that looks like an address', { url: 'http://127.0.0.1@api.openai.com/', config: { allowed_hosts: ['api.openai.com'] }, dns: { 'api.openai.com': PUBLIC }, allowed: true }],
  // default_deny: false still refuses internal addresses.
  ['open policy allows a public name', { url: 'https://example.net/', config: open, dns: { 'example.net': PUBLIC }, allowed: true, why: 'default_deny=false' }],
  ['open policy: unlisted localhost', { url: 'http://localhost:8080/', config: open, allowed: false, stage: 'address', why: 'loopback' }],
  ['open policy: private literal', { url: 'http://10.0.0.1/', config: open, allowed: false, stage: 'address', why: 'private' }],
  ['open policy: CGNAT literal', { url: 'http://100.64.1.1/', config: open, allowed: false, stage: 'address', why: 'cgnat' }],
  ['open policy: ULA literal', { url: 'http://[fd00::1]/', config: open, allowed: false, stage: 'address', why: 'ula' }],
  ['open policy: link-local literal', { url: 'http://[fe80::1]/', config: open, allowed: false, stage: 'address', why: 'link-local' }],
  ['open policy: multicast literal', { url: 'http://224.0.0.1/', config: open, allowed: false, stage: 'address', why: 'multicast' }],
  ['open policy: unspecified IPv4', { url: 'http://0.0.0.0:8080/', config: open, allowed: false, stage: 'address', why: 'unspecified' }],
  ['open policy: unspecified IPv6', { url: 'http://[::]/', config: open, allowed: false, stage: 'address', why: 'unspecified' }],
  ['open policy: metadata name', { url: 'http://metadata.google.internal/', config: open, dns: { 'metadata.google.internal': ['169.254.169.254'] }, allowed: false, stage: 'address', why: 'metadata' }],
  ['open policy: explicit loopback entry', { url: 'http://127.0.0.1:9000/', config: { default_deny: false, allowed_hosts: ['127.0.0.1:9000'] }, allowed: true }],
  // REST rules run after the host passed, on the normalised path, before DNS.
  ['REST deny rule', { url: 'https://api.github.com/admin/x', config: { presets: ['github'], rest_policies: [{ host: 'api.github.com', method: '*', path: '/admin/*', action: 'deny' }] }, allowed: false, stage: 'rest', why: 'rest_policies[0]' }],
  ['REST rule sees through %2e%2e', { url: 'https://api.github.com/public/%2e%2e/admin/x', config: { presets: ['github'], rest_policies: [{ host: 'api.github.com', method: '*', path: '/admin/*', action: 'deny' }] }, allowed: false, stage: 'rest' }],
  ['REST rule ignores the query', { url: 'https://api.github.com/a?b=/admin/x', method: 'GET', config: { presets: ['github'], rest_policies: [{ host: 'api.github.com', method: 'GET', path: '/a', action: 'deny' }] }, allowed: false, stage: 'rest' }],
  ['REST rule for another method', { url: 'https://api.github.com/admin/x', method: 'GET', config: { presets: ['github'], rest_policies: [{ host: 'api.github.com', method: 'DELETE', path: '/**', action: 'deny' }] }, dns: { 'api.github.com': PUBLIC }, allowed: true }],
  ['REST allow rule decides the rule name', { url: 'https://api.github.com/repos/x/issues', config: { presets: ['github'], rest_policies: [{ host: 'api.github.com', method: 'GET', path: '/repos/*/issues', action: 'allow' }] }, dns: { 'api.github.com': PUBLIC }, allowed: true, why: 'rest_policies[0]' }],
  ['REST allow rule cannot open a denied host', { url: 'https://evil.example/x', config: { rest_policies: [{ host: 'evil.example', method: '*', path: '/**', action: 'allow' }] }, allowed: false, stage: 'host' }],
];

async function decide(c: Case): Promise<{ decision: DestinationDecision; lookups: string[] }> {
  const lookups: string[] = [];
  const resolver = async (host: string): Promise<string[]> => {
    lookups.push(host);
    const answer = c.dns?.[host];
    if (!answer) throw new Error(`unexpected DNS query for ${host}`);
    return answer;
  };
  const policy = NetworkPolicy.fromConfig(c.config);
  const decision = await evaluateDestination(policy, { url: new URL(c.url), method: c.method ?? 'GET', category: c.category ?? 'tool' }, { resolver });
  return { decision, lookups };
}

describe('network policy decision table', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', async (_name, c) => {
    const { decision, lookups } = await decide(c);
    expect(decision.allowed).toBe(c.allowed);
    if (decision.allowed) {
      if (c.why) expect(decision.rule).toContain(c.why);
      expect(decision.addresses.length).toBeGreaterThan(0);
    } else {
      expect(decision.stage).toBe(c.stage);
      if (c.why) expect(`${decision.rule ?? ''} ${decision.reason}`).toContain(c.why);
      // A host or REST refusal happens before DNS: the name is never even looked up.
      if (decision.stage !== 'address') expect(lookups).toEqual([]);
    }
  });
});

describe('evaluateDestination', () => {
  it('queries DNS once and returns exactly the checked answers', async () => {
    let calls = 0;
    const resolver = async (): Promise<string[]> => (++calls === 1 ? ['93.184.216.34', '2606:2800::1'] : ['127.0.0.1']);
    const policy = NetworkPolicy.fromConfig({ allowed_hosts: ['example.com'] });
    const decision = await evaluateDestination(policy, { url: new URL('https://example.com/'), method: 'GET', category: 'tool' }, { resolver });
    expect(calls).toBe(1);
    expect(decision).toMatchObject({ allowed: true, addresses: ['93.184.216.34', '2606:2800::1'] });
  });

  it('refuses an empty or non-IP DNS answer', async () => {
    const policy = NetworkPolicy.fromConfig({ allowed_hosts: ['example.com'] });
    const request = { url: new URL('https://example.com/'), method: 'GET', category: 'tool' as const };
    await expect(evaluateDestination(policy, request, { resolver: async () => [] })).resolves.toMatchObject({ allowed: false, stage: 'address' });
    await expect(evaluateDestination(policy, request, { resolver: async () => ['example.org'] })).resolves.toMatchObject({ allowed: false, stage: 'address' });
  });

  it('asks the approver for host and REST denials, never for address denials', async () => {
    const asked: string[] = [];
    const approve = async (denial: { stage: string }): Promise<boolean> => {
      asked.push(denial.stage);
      return true;
    };
    const policy = NetworkPolicy.fromConfig({
      rest_policies: [{ host: 'example.com', method: '*', path: '/**', action: 'deny' }],
    });
    const request = { url: new URL('https://example.com/x'), method: 'GET', category: 'tool' as const };
    const approved = await evaluateDestination(policy, request, { approve, resolver: async () => PUBLIC });
    expect(approved).toMatchObject({ allowed: true, approved: true });
    expect(asked).toEqual(['host', 'rest']);

    asked.length = 0;
    const rebound = await evaluateDestination(policy, request, { approve, resolver: async () => ['127.0.0.1'] });
    expect(rebound).toMatchObject({ allowed: false, stage: 'address', overridable: false });
    expect(asked).toEqual(['host', 'rest']);
  });

  it('never asks about a request the address rules refuse without DNS (IP literals, localhost names)', async () => {
    const asked: string[] = [];
    const approve = async (denial: { host: string }): Promise<boolean> => {
      asked.push(denial.host);
      return true;
    };
    const policy = NetworkPolicy.fromConfig({});
    const resolver = async (host: string): Promise<string[]> => {
      throw new Error(`unexpected DNS query for ${host}`);
    };
    for (const url of ['http://127.0.0.1:18111/v1/chat', 'http://[::1]:8080/', 'http://0x7f.1/', 'http://10.0.0.5/', 'http://169.254.169.254/latest', 'http://b.localhost:18111/']) {
      const decision = await evaluateDestination(policy, { url: new URL(url), method: 'POST', category: 'provider' }, { approve, resolver });
      expect(decision, url).toMatchObject({ allowed: false, stage: 'address', overridable: false });
    }
    expect(asked).toEqual([]);
    // A public literal the address rules allow is put to the operator for its host.
    const allowed = await evaluateDestination(policy, { url: new URL('http://93.184.216.34:18111/'), method: 'GET', category: 'tool' }, { approve, resolver });
    expect(allowed).toMatchObject({ allowed: true, approved: true, addresses: ['93.184.216.34'] });
    expect(asked).toEqual(['93.184.216.34']);
  });

  it('names the scheme on a denial, so an http grant never reads as an https one', async () => {
    const policy = NetworkPolicy.fromConfig({ default_deny: true });
    const request = (url: string) => ({ url: new URL(url), method: 'GET', category: 'tool' as const });
    await expect(evaluateDestination(policy, request('http://example.com/'))).resolves.toMatchObject({ scheme: 'http', port: 80, stage: 'host' });
    await expect(evaluateDestination(policy, request('HTTPS://EXAMPLE.com.:443/'))).resolves.toMatchObject({ scheme: 'https', host: 'example.com', port: 443 });
  });
});
