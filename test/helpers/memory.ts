import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Resident set size in MiB after a full garbage collection, so the figure is live memory, not
 * garbage. Test workers do not run with --expose-gc, so the flag is switched on here and `gc`
 * fetched from a fresh context (where V8 installs it).
 */
export function rssAfterGcMb(): number {
  setFlagsFromString('--expose-gc');
  const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext('gc') as () => void);
  gc();
  gc();
  return process.memoryUsage().rss / (1024 * 1024);
}
