import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/errors.js';
import { configSchema, type NetworkConfig } from '../config/schema.js';
import { parseIp } from './ip.js';
import { NetworkPolicy } from './network-policy.js';

function hostAllowed(config: Partial<NetworkConfig>, host: string, port: number, category: 'provider' | 'tool' | 'discord' = 'tool'): boolean {
  return NetworkPolicy.fromConfig(config).checkHost(host, port, parseIp(host), category).allowed;
}

describe('NetworkPolicy.fromConfig', () => {
  it('builds from the defaults of the config schema: deny everything, no approval', () => {
    const policy = NetworkPolicy.fromConfig(configSchema.parse({}).network);
    expect(policy.defaultDeny).toBe(true);
    expect(policy.interactiveApproval).toBe(false);
    expect(policy.checkHost('api.openai.com', 443, null, 'provider').allowed).toBe(false);
  });

  it('reads interactive_approval and default_deny', () => {
    const policy = NetworkPolicy.fromConfig(configSchema.parse({ network: { interactive_approval: true, default_deny: false } }).network);
    expect(policy.interactiveApproval).toBe(true);
    expect(policy.checkHost('example.net', 443, null, 'tool')).toMatchObject({ allowed: true, rule: 'network.default_deny=false' });
  });

  it('denyAll refuses every host', () => {
    expect(NetworkPolicy.denyAll().checkHost('127.0.0.1', 80, parseIp('127.0.0.1'), 'tool').allowed).toBe(false);
  });

  it.each([
    [{ allowed_cidrs: ['10.0.0.0/8', '::1/128', '10.0.0/8'] }, 'network.allowed_cidrs[2]: "10.0.0/8" is not a CIDR'],
    [{ allowed_cidrs: ['192.168.0.0/33'] }, 'network.allowed_cidrs[0]: "192.168.0.0/33" is not a CIDR'],
    [{ allowed_hosts: ['ok.example', 'bad host'] }, 'network.allowed_hosts[1]: "bad host" is not a host or host:port'],
    [{ allowed_hosts: ['a.example:99999'] }, 'network.allowed_hosts[0]: "a.example:99999" is not a host or host:port'],
    [{ provider_allowed_hosts: ['http://a.example'] }, 'network.provider_allowed_hosts[0]: "http://a.example" is not a host or host:port'],
    [{ tool_allowed_hosts: ['a.example/x'] }, 'network.tool_allowed_hosts[0]: "a.example/x" is not a host or host:port'],
    [{ discord_allowed_hosts: ['*.discord.com'] }, 'network.discord_allowed_hosts[0]: "*.discord.com" is not a host or host:port'],
    [{ allowed_domains: ['*.com'] }, 'network.allowed_domains[0]: "*.com" is too broad (a wildcard needs at least two labels)'],
    [{ presets: ['gitlab'] }, 'network.presets: unknown preset "gitlab"'],
    [{ rest_policies: [{ host: 'a.example', method: 'GET', path: '/x', action: 'permit' }] }, 'network.rest_policies[0].action: "permit" must be allow or deny'],
  ])('refuses %j', (config, message) => {
    const build = () => NetworkPolicy.fromConfig(config as Partial<NetworkConfig>);
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(message);
  });

  it('never treats a preset name from the object prototype as a preset', () => {
    expect(() => NetworkPolicy.fromConfig({ presets: ['constructor' as never] })).toThrow(ConfigError);
  });
});

describe('NetworkPolicy.checkHost', () => {
  it('merges the category list with the general one', () => {
    const config = { allowed_hosts: ['all.example'], provider_allowed_hosts: ['llm.example'], discord_allowed_hosts: ['discord.com:443'] };
    expect(hostAllowed(config, 'all.example', 443, 'discord')).toBe(true);
    expect(hostAllowed(config, 'llm.example', 443, 'provider')).toBe(true);
    expect(hostAllowed(config, 'llm.example', 443, 'tool')).toBe(false);
    expect(hostAllowed(config, 'discord.com', 443, 'discord')).toBe(true);
    expect(hostAllowed(config, 'discord.com', 80, 'discord')).toBe(false);
  });

  it('allows the same host on several listed ports', () => {
    const config = { allowed_hosts: ['a.example:8080', 'a.example:9090'] };
    expect(hostAllowed(config, 'a.example', 8080)).toBe(true);
    expect(hostAllowed(config, 'a.example', 9090)).toBe(true);
    expect(hostAllowed(config, 'a.example', 7070)).toBe(false);
  });

  it('names the preset that allowed a host', () => {
    const policy = NetworkPolicy.fromConfig({ presets: ['openai', 'discord'] });
    expect(policy.checkHost('api.openai.com', 443, null, 'provider')).toMatchObject({ allowed: true, rule: 'preset:openai' });
    expect(policy.checkHost('gateway.discord.gg', 443, null, 'discord')).toMatchObject({ allowed: true, rule: 'preset:discord' });
  });
});

describe('NetworkPolicy.checkAddress', () => {
  const policy = NetworkPolicy.fromConfig({ allowed_hosts: ['localhost:11434', '10.0.0.5:80'], allowed_cidrs: ['192.168.10.0/24', 'fd00:abcd::/32'] });
  const entry = (host: string, port: number) => policy.checkHost(host, port, parseIp(host), 'tool');

  it('accepts public addresses and anything inside allowed_cidrs', () => {
    expect(policy.checkAddress(parseIp('93.184.216.34')!, null).allowed).toBe(true);
    expect(policy.checkAddress(parseIp('192.168.10.7')!, null)).toEqual({ allowed: true, rule: 'network.allowed_cidrs[0]' });
    expect(policy.checkAddress(parseIp('fd00:abcd::1')!, null)).toEqual({ allowed: true, rule: 'network.allowed_cidrs[1]' });
  });

  it('lets an explicit entry vouch only for the address it names', () => {
    const ten = entry('10.0.0.5', 80);
    expect(ten.allowed).toBe(true);
    const vouching = ten.allowed ? ten.entry : null;
    expect(policy.checkAddress(parseIp('10.0.0.5')!, vouching).allowed).toBe(true);
    expect(policy.checkAddress(parseIp('10.0.0.6')!, vouching)).toMatchObject({ allowed: false, kind: 'private', address: '10.0.0.6' });
    const local = entry('localhost', 11434);
    const localEntry = local.allowed ? local.entry : null;
    expect(policy.checkAddress(parseIp('127.0.0.1')!, localEntry).allowed).toBe(true);
    expect(policy.checkAddress(parseIp('::1')!, localEntry).allowed).toBe(true);
    expect(policy.checkAddress(parseIp('10.0.0.5')!, localEntry).allowed).toBe(false);
  });
});
