import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireHomeLock, HomeLockedError } from './home-lock.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('acquireHomeLock', () => {
  it('refuses a second holder while the first lives and frees the home on release', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-lock-'));
    const release = acquireHomeLock(dir);
    expect(() => acquireHomeLock(dir)).toThrow(HomeLockedError);
    expect(() => acquireHomeLock(dir)).toThrow(`pid ${process.pid}`);
    release();
    expect(existsSync(join(dir, 'agentd.lock'))).toBe(false);
    acquireHomeLock(dir)();
  });

  it('takes over a lock left by a process that no longer exists', () => {
    dir = mkdtempSync(join(tmpdir(), 'agentd-lock-'));
    // The pid of a process that has already exited.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(dir, 'agentd.lock'), `${gone}\n`);
    const release = acquireHomeLock(dir);
    expect(() => acquireHomeLock(dir)).toThrow(`pid ${process.pid}`);
    release();
  });
});
