import { REDIS_TEST_ENV } from './helpers/redis-env.js';

/** Runs once for the whole test run: a skipped Redis suite is said once, loudly, not per file. */
export default function setup(): void {
  if (!process.env[REDIS_TEST_ENV]) {
    process.stderr.write(`\n*** SKIPPING the Redis suites: set ${REDIS_TEST_ENV}=redis://127.0.0.1:6379 to run them (.ci/run does) ***\n\n`);
  }
}
