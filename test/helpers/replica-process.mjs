// A replica of the service in a process of its own, with the session-lease timings a test chooses,
// so a test can kill it with SIGKILL mid-run. Built code (`npm test` builds first).
// Environment: REPLICA_HOME, REPLICA_CONFIG (JSON), REPLICA_LEASE_MS, REPLICA_HEARTBEAT_MS,
// REPLICA_REDIS_PREFIX (the Redis keys it shares with the test's other replicas).
import { createApp } from '../../dist/src/app.js';

const app = await createApp({
  home: process.env.REPLICA_HOME,
  config: JSON.parse(process.env.REPLICA_CONFIG),
  env: process.env,
  sessionLeaseMs: Number(process.env.REPLICA_LEASE_MS),
  heartbeatMs: Number(process.env.REPLICA_HEARTBEAT_MS),
  redisKeyPrefix: process.env.REPLICA_REDIS_PREFIX,
});
const url = await app.listen();
if (app.webhook) process.stdout.write(`replica webhook on ${app.webhook.url}\n`);
process.stdout.write(`replica listening on ${url}\n`);
