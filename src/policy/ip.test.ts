import { describe, expect, it } from 'vitest';
import { cidrContains, classifyAddress, formatIp, parseCidr, parseIp, sameAddress } from './ip.js';

function classOf(text: string): string | null {
  const address = parseIp(text);
  if (!address) throw new Error(`not an IP: ${text}`);
  return classifyAddress(address);
}

describe('parseIp / formatIp', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    ['fe80::1%eth0', 'fe80::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['1::2:3:4:5:6:7', '1:0:2:3:4:5:6:7'],
  ])('%s → %s', (input, canonical) => {
    const address = parseIp(input);
    expect(address && formatIp(address)).toBe(canonical);
  });

  it.each(['', 'localhost', '1.2.3', '256.0.0.1', '1:2:3:4:5:6:7:8:9', '::ffff:1.2.3', 'example.com'])('%j is not an IP', (input) => {
    expect(parseIp(input)).toBeNull();
  });

  it('treats an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(sameAddress(parseIp('::ffff:10.0.0.1')!, parseIp('10.0.0.1')!)).toBe(true);
    expect(sameAddress(parseIp('10.0.0.2')!, parseIp('10.0.0.1')!)).toBe(false);
  });
});

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', null],
    ['2606:4700:4700::1111', null],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', null],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.128.0.1', null],
    ['fd12:3456::1', 'ula'],
    ['fe80::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::808:808', null],
    ['2002:a9fe:a9fe::', 'metadata'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['::127.0.0.1', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(classOf(address)).toBe(kind);
  });
});

describe('parseCidr / cidrContains', () => {
  it('contains exactly the addresses of the prefix', () => {
    const ten = parseCidr('10.0.0.0/8')!;
    expect(cidrContains(ten, parseIp('10.255.255.255')!)).toBe(true);
    expect(cidrContains(ten, parseIp('11.0.0.0')!)).toBe(false);
    const odd = parseCidr('192.168.4.0/22')!;
    expect(cidrContains(odd, parseIp('192.168.7.255')!)).toBe(true);
    expect(cidrContains(odd, parseIp('192.168.8.0')!)).toBe(false);
    const v6 = parseCidr('fd00::/8')!;
    expect(cidrContains(v6, parseIp('fd12::1')!)).toBe(true);
    expect(cidrContains(v6, parseIp('fe00::1')!)).toBe(false);
    expect(cidrContains(v6, parseIp('10.0.0.1')!)).toBe(false);
  });

  it('reads a bare address as a single-host range', () => {
    expect(parseCidr('10.0.0.5')).toMatchObject({ family: 4, prefix: 32 });
    expect(parseCidr('::1')).toMatchObject({ family: 6, prefix: 128 });
  });

  it.each(['10.0.0/8', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/8', 'example.com/8', '10.0.0.0/-1', 'fe80::1%eth0/64'])('rejects %j', (text) => {
    expect(parseCidr(text)).toBeNull();
  });
});
