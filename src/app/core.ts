import type { AuditLog } from '../audit/log.js';
import type { Config } from '../config/schema.js';
import type { RedisCoordination } from '../coordination/redis-coordination.js';
import type { Logger } from '../log.js';
import type { ServiceMetrics } from '../metrics/index.js';
import type { Storage } from '../storage/ports/storage.js';

/** What every area of the service is wired with: its settings, clock, log, stores, shared coordination, audit and metrics. */
export interface ServiceCore {
  config: Config;
  log: Logger;
  now: () => number;
  storage: Storage;
  coordination: RedisCoordination | null;
  audit: AuditLog;
  metrics: ServiceMetrics;
}
