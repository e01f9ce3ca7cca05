import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';

/**
 * What a test starts and the test file's `afterEach` stops: apps (closed newest first) and home
 * folders that outlive one app, for restarts (removed after the apps). Call once at the top of a
 * test file.
 */
export function perTest() {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const clean of cleanups.splice(0).reverse()) await clean();
  });
  return {
    async app(options: TestAppOptions = {}): Promise<TestApp> {
      const t = await startTestApp(options);
      cleanups.push(() => t.close());
      return t;
    },
    home(prefix = 'agentd-test-'): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      cleanups.unshift(async () => rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
    /** Anything else to undo after the test (run before the homes are removed). */
    later(clean: () => Promise<void>): void {
      cleanups.push(clean);
    },
  };
}
