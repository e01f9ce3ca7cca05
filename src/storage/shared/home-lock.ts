import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homeFile } from '../../config/home-layout.js';

export class HomeLockedError extends Error {
  override name = 'HomeLockedError';
}

/**
 * One service per home folder. A second `agentd serve` on the same home would otherwise treat the
 * first one's in-flight runs as interrupted by a restart and mark them failed. The lock is a file
 * holding the owner's pid; a lock whose process no longer exists (a crash, kill -9) is taken over.
 * Returns the release function.
 */
export function acquireHomeLock(home: string): () => void {
  const path = homeFile(home, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(owner) && owner > 0 && processExists(owner)) {
        throw new HomeLockedError(
          `another agentd (pid ${owner}) is using ${home}; stop it first, or remove ${path} if that process is not agentd`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new HomeLockedError(`could not take the lock ${path}`);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
