/** The variable that enables the suites needing a real Redis (`.ci/run` exports it). */
export const REDIS_TEST_ENV = 'AGENTD_TEST_REDIS_URL';
