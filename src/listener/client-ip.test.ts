import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientIp, requestClientIp } from './client-ip.js';

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

describe('requestClientIp', () => {
  it('gives a real connection the address clientIp gives its peer, with and without a trusted proxy', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const socket = await accepted;
    try {
      expect(requestClientIp(socket, undefined, false)).toBe('127.0.0.1');
      // The second request on the connection gets the same answer; the header counts only when trusted.
      expect(requestClientIp(socket, '203.0.113.9', false)).toBe('127.0.0.1');
      expect(requestClientIp(socket, '203.0.113.9, 10.0.0.1', true)).toBe('203.0.113.9');
      expect(requestClientIp(socket, 'not-an-ip', true)).toBe('127.0.0.1');
    } finally {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
