import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/errors.js';
import { KnownSecrets } from '../security/secrets/known-secrets.js';
import { loadRequestHashKey } from './hash-key.js';
import { homeFile } from '../config/home-layout.js';
import { toolRequest } from './request-text.js';

const homes: string[] = [];
const home = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-hashkey-'));
  homes.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const hashOf = (key: Buffer) => toolRequest('calculator', { expression: '2+3' }, { hashKey: key, secrets: new KnownSecrets([]) }).hash;

describe('the installation key of request hashes', () => {
  it('is made once in the home folder (owner-only, 32 random bytes) and read back on the next start', () => {
    const dir = home();
    const first = loadRequestHashKey('', dir);
    const path = homeFile(dir, 'approvalHashKey');
    expect(readFileSync(path, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(first.source).toBe('home');
    expect(loadRequestHashKey('', dir).key.equals(first.key)).toBe(true);
    // Another installation has another key: its hashes of the same request differ.
    expect(hashOf(loadRequestHashKey('', home()).key)).not.toBe(hashOf(first.key));
  });

  it('is the same on replicas that share approval_hash_key, whatever their home folders hold', () => {
    const shared = 'a-shared-secret-of-at-least-32-characters';
    const a = loadRequestHashKey(shared, home());
    const b = loadRequestHashKey(shared, home());
    expect(a.source).toBe('config');
    expect(hashOf(a.key)).toBe(hashOf(b.key));
    expect(hashOf(a.key)).not.toBe(hashOf(loadRequestHashKey(`${shared}!`, home()).key));
    // The configured text is not the HMAC key itself (HKDF separates this use of it).
    expect(a.key.equals(Buffer.from(shared).subarray(0, 32))).toBe(false);
  });

  it('tightens a key file others can read, and refuses a damaged one with the fix', () => {
    const dir = home();
    const path = homeFile(dir, 'approvalHashKey');
    writeFileSync(path, `${'ab'.repeat(32)}\n`, { mode: 0o644 });
    loadRequestHashKey('', dir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, 'short');
    expect(() => loadRequestHashKey('', dir)).toThrow(ConfigError);
    expect(() => loadRequestHashKey('', dir)).toThrow(/not 64 hexadecimal characters; restore it from a backup, or remove it/);
  });
});
