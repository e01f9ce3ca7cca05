import { POSTGRES_TEST_VARIABLE, postgresTestUrl } from './helpers/postgres.js';

/** Vitest global setup: one loud line when the PostgreSQL suites are skipped, and why. */
export default function setup(): void {
  if (postgresTestUrl !== null) return;
  process.stderr.write(
    `\n*** PostgreSQL suites SKIPPED: set ${POSTGRES_TEST_VARIABLE}=postgres://root@127.0.0.1:5432/postgres (a user that may create databases) to run them; .ci/run does ***\n\n`,
  );
}
