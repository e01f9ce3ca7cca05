import { describe, expect, it } from 'vitest';
import { clientIp } from './client-ip.js';

describe('clientIp', () => {
  it.each([
    ['127.0.0.1', undefined, false, '127.0.0.1'],
    ['::ffff:10.0.0.7', undefined, false, '10.0.0.7'],
    ['10.0.0.1', '203.0.113.9', false, '10.0.0.1'],
    ['10.0.0.1', '203.0.113.9, 10.0.0.1', true, '203.0.113.9'],
    ['10.0.0.1', ' 2001:DB8::1 ,1.1.1.1', true, '2001:db8::1'],
    ['10.0.0.1', 'not-an-ip, 1.2.3.4', true, '10.0.0.1'],
    ['10.0.0.1', '', true, '10.0.0.1'],
    [undefined, undefined, false, 'unknown'],
  ] as const)('peer %s, XFF %s, trust %s → %s', (peer, xff, trust, expected) => {
    expect(clientIp(peer, xff, trust)).toBe(expected);
  });
});
