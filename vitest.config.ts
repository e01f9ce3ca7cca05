import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One list: a second `globalSetup` key would replace the first, silencing its notice.
    globalSetup: ['test/global-setup.ts', 'test/postgres-notice.ts'],
  },
});
