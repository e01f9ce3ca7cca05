import type { Logger } from '../log.js';
import { RedisConnection } from './redis-connection.js';

/** What diagnostics report about the Redis replicas share. */
export interface RedisHealth {
  /** The URL without its password. */
  target: string;
  reachable: boolean;
  /** `redis_version` of the server, when it answered. */
  version: string | null;
  /** Round trip of one PING, in milliseconds. */
  latencyMs: number | null;
  /** Why it is unreachable. */
  error: string | null;
}

/** One PING (timed) and the server's version, over a connection of the service. */
export async function measureRedis(connection: RedisConnection): Promise<RedisHealth> {
  const started = performance.now();
  try {
    await connection.client.ping();
    const latencyMs = Math.round((performance.now() - started) * 10) / 10;
    const info = await connection.client.info('server');
    const version = /^redis_version:(\S+)/m.exec(info)?.[1] ?? null;
    return { target: connection.target, reachable: true, version, latencyMs, error: null };
  } catch (error) {
    return { target: connection.target, reachable: false, version: null, latencyMs: null, error: (error as Error)?.message ?? String(error) };
  }
}

/** `agentd doctor` without a running service: connects once, measures, disconnects. */
export async function probeRedis(url: string, log: Logger): Promise<RedisHealth> {
  const connection = new RedisConnection({ url, role: 'doctor', log });
  try {
    if (!(await connection.connect())) {
      return { target: connection.target, reachable: false, version: null, latencyMs: null, error: 'no connection within the connect timeout' };
    }
    return await measureRedis(connection);
  } finally {
    await connection.close();
  }
}
