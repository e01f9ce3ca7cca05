import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigError } from '../config/errors.js';
import { homeFile } from '../config/home-layout.js';

/** Separates this use of the secret from any other use a future version may make of it. */
const HKDF_INFO = 'agentd approvals request_hash v1';

/** Where the key came from, for the start-up warning on replicas. */
export type HashKeySource = 'config' | 'home';

export interface RequestHashKey {
  /** 32 bytes, the HMAC key itself (derived, never the configured text). */
  key: Buffer;
  source: HashKeySource;
  /** The secret as written (config value or file text), to mask should it ever appear in a request. */
  secret: string;
}

/**
 * The per-installation key of approvals' `request_hash`: HKDF-SHA256 of `approval_hash_key` when it
 * is set (replicas share it through their config), else of the file `approval-hash.key` in the home
 * folder (32 random bytes as hex, mode 0600, written at first start). The key is kept out of the
 * database and the audit log, so a published hash cannot be checked against guesses offline.
 */
export function loadRequestHashKey(configured: string, home: string): RequestHashKey {
  if (configured !== '') return { key: derive(configured), source: 'config', secret: configured };
  const secret = readOrCreate(homeFile(home, 'approvalHashKey'));
  return { key: derive(secret), source: 'home', secret };
}

/** HMAC-SHA256 (hex) of `text` under `key`. */
export function requestDigest(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

function derive(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), HKDF_INFO, 32));
}

const KEY_TEXT = /^[0-9a-f]{64}$/;

function readOrCreate(path: string): string {
  try {
    // `wx`: an existing key is never overwritten (hashes already published stay reproducible).
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError(`cannot write the approval hash key ${path} (${(error as Error).message}); give your user write access to the home folder, or set approval_hash_key in the config`);
    }
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
    // Owner-only, like the config: a key others can read lets them test guesses against the hashes.
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch (error) {
    throw new ConfigError(`cannot read the approval hash key ${path} (${(error as Error).message}); give your user read access to it`);
  }
  if (!KEY_TEXT.test(text)) {
    throw new ConfigError(`the approval hash key ${path} is not 64 hexadecimal characters; restore it from a backup, or remove it to have a new one made (hashes published before then can no longer be reproduced)`);
  }
  return text;
}
