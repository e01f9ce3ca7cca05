import type { AuditLog } from '../audit/log.js';
import { DUPLICATE_WINDOW_DAYS, SIGNATURE_PRUNE_MARGIN_MS } from '../channels/inbox/durable-inbox.js';
import { ConfigError } from '../config/errors.js';
import { ensureHome } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { homeFile } from '../config/home-layout.js';
import type { RedisCoordination } from '../coordination/redis-coordination.js';
import type { Logger } from '../log.js';
import { acquireHomeLock, HomeLockedError } from '../storage/shared/home-lock.js';
import { openConfiguredStorage } from '../storage/registry.js';
import { startRetention, type RetentionRule } from '../storage/retention.js';
import type { Storage } from '../storage/ports/storage.js';
import type { LifecyclePart } from './lifecycle.js';

export interface StoresInput {
  config: Config;
  home: string;
  log: Logger;
  now: () => number;
  redisKeyPrefix?: string;
}

export interface Stores {
  storage: Storage;
  /** State shared with other replicas (`storage.redis_url`); null: all of it stays in this process. */
  coordination: RedisCoordination | null;
  /** The home lock, the database and the Redis connections, in start order. */
  parts: LifecyclePart[];
}

/** Locks the home and opens the configured database; what this opened is released again if it throws. */
export async function openStores({ config, home, log, now, redisKeyPrefix }: StoresInput): Promise<Stores> {
  ensureHome(home);
  const releaseLock = lockHome(home);
  let storage: Storage | undefined;
  const redisUrl = config.storage.redis_url;
  // The Redis client is loaded only when Redis is configured, so a single node starts without it.
  const coordination = redisUrl === null
    ? null
    : new (await import('../coordination/redis-coordination.js')).RedisCoordination({ url: redisUrl, log, keyPrefix: redisKeyPrefix ?? config.storage.redis_key_prefix });
  try {
    storage = await openConfiguredStorage(config, home, { now, service: true, log });
  } catch (error) {
    await coordination?.close();
    releaseLock();
    throw error;
  }
  const opened = storage;
  const parts: LifecyclePart[] = [
    { name: 'home lock', stop: releaseLock },
    { name: 'database', stop: () => opened.close() },
  ];
  if (coordination) parts.push({ name: 'redis', start: () => coordination.start(), stop: () => coordination.close() });
  return { storage: opened, coordination, parts };
}

function lockHome(home: string): () => void {
  try {
    return acquireHomeLock(home);
  } catch (error) {
    if (error instanceof HomeLockedError) throw error;
    throw new ConfigError(`cannot write the lock file ${homeFile(home, 'lock')} (${(error as Error).message}); give your user write access to ${home} or pass --home (or set AGENTD_HOME) to a folder you can write`);
  }
}

/** The daily pruning of every table that only grows. */
export function retentionPart(config: Config, storage: Storage, audit: AuditLog, now: () => number, log: Logger): LifecyclePart {
  let stopRetention: (() => Promise<void>) | null = null;
  return {
    name: 'retention',
    start: () => {
      stopRetention = startRetention(retentionRules(config, storage, audit, now), log);
    },
    stop: async () => {
      await stopRetention?.();
    },
  };
}

const DAY_MS = 86_400_000;
const cutoff = (now: () => number, days: number) => new Date(now() - days * DAY_MS).toISOString();

/** Every table that only grows, with its age limit from the config (0 keeps it forever). */
function retentionRules(config: Config, storage: Storage, audit: AuditLog, now: () => number): RetentionRule[] {
  return [
    { what: 'turns', days: config.memory.retention_days, prune: (days, signal) => storage.turns.cleanupOlderThan(days, { signal }) },
    { what: 'runs', days: config.retention.runs_days, prune: (days, signal) => storage.runs.pruneFinishedBefore(cutoff(now, days), { signal }) },
    { what: 'cost records', days: config.retention.costs_days, prune: (days, signal) => storage.costs.pruneBefore(cutoff(now, days), { signal }) },
    { what: 'approvals', days: config.retention.runs_days, prune: (days, signal) => storage.approvals.pruneClosedBefore(cutoff(now, days), { signal }) },
    { what: 'audit events', days: config.retention.audit_days, prune: (days, signal) => audit.prune(days, { signal }) },
    // Started webhook messages are kept (text erased) only while their X-Request-Id catches repeats.
    { what: 'webhook messages', days: DUPLICATE_WINDOW_DAYS, prune: (days, signal) => storage.inbox.pruneStartedBefore(cutoff(now, days), { signal }) },
    // Replay records matter only until their timestamp leaves the tolerance window; `accept` removes
    // expired ones as it goes, this catches what a quiet channel left behind. The margin covers
    // replicas whose clocks run behind this one's.
    {
      what: 'webhook replay records', days: DUPLICATE_WINDOW_DAYS, age: 'past their timestamp window',
      prune: (_days, signal) => storage.inbox.pruneSignaturesBefore(new Date(now() - SIGNATURE_PRUNE_MARGIN_MS).toISOString(), { signal }),
    },
  ];
}
