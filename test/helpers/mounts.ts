import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Real filesystems for the tests of full disks and read-only homes: a small tmpfs, a read-only bind
 * mount. Mounting needs root with CAP_SYS_ADMIN (CI has it); each helper answers null where this
 * process cannot mount, and the caller falls back to what it can do without.
 */

function mount(args: string[]): boolean {
  if (process.getuid?.() !== 0) return false;
  return spawnSync('mount', args, { stdio: 'ignore' }).status === 0;
}

/** Unmounts `dir`, lazily if something still holds it open. */
export function unmount(dir: string): void {
  if (spawnSync('umount', [dir], { stdio: 'ignore' }).status !== 0) spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
}

/** A new folder with a tmpfs of `size` (as `mount -o size=` reads it) mounted on it, or null. */
export function smallTmpfs(size: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'agentd-tmpfs-'));
  if (mount(['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir])) return dir;
  rmSync(dir, { recursive: true, force: true });
  return null;
}

/** Whether this process can mount a tmpfs (tried and undone at once): for `it.runIf`. */
export function canMountTmpfs(): boolean {
  const dir = smallTmpfs('1m');
  if (dir === null) return false;
  unmount(dir);
  rmSync(dir, { recursive: true, force: true });
  return true;
}

/** Takes every free byte of the filesystem of `dir` with the file `dir/filler`; returns its path. */
export function fillFilesystem(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  try {
    // Big chunks first, then ever smaller ones for the last partly free block.
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
      const chunk = Buffer.alloc(size, 0x61);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

/**
 * Makes `dir` read-only for this process and the commands it starts; returns the undo, or null when
 * it cannot. As root (CI) a read-only bind mount of `dir` over itself, since permissions do not stop
 * root; as any other user, taking away the write bits does.
 */
export function makeReadOnly(dir: string): (() => void) | null {
  if (mount(['--bind', dir, dir])) {
    if (mount(['-o', 'remount,ro,bind', dir])) return () => unmount(dir);
    unmount(dir);
    return null;
  }
  if (process.getuid?.() === 0) return null;
  spawnSync('chmod', ['-R', 'a-w', dir]);
  return () => void spawnSync('chmod', ['-R', 'u+w', dir]);
}
