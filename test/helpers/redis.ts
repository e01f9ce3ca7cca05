import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { describe } from 'vitest';
import { randomToken } from '../../src/security/ids/tokens.js';
import { REDIS_TEST_ENV } from './redis-env.js';
import { tcpRelay } from './tcp-relay.js';

export { REDIS_TEST_ENV };

/** The shared test Redis, or undefined when the variable is unset (the suites are skipped). */
export const testRedisUrl: string | undefined = process.env[REDIS_TEST_ENV] || undefined;

/** `describe` that runs only with a test Redis; the global setup prints the one line saying so. */
export function describeWithRedis(name: string, suite: () => void): void {
  describe.skipIf(testRedisUrl === undefined)(name, suite);
}

/** A key prefix no other test (nor a later run of this one) uses on the shared Redis. */
export function uniquePrefix(): string {
  return `agentd-test:${randomToken(8)}:`;
}

/**
 * A TCP relay to the shared test Redis that the test can cut for good: one replica cut off from
 * Redis while the others still reach it.
 */
export async function redisRelay(): Promise<{ url: string; cut(): Promise<void> }> {
  const target = new URL(testRedisUrl!);
  const relay = await tcpRelay(target.hostname, Number(target.port || 6379));
  const url = new URL(testRedisUrl!);
  url.hostname = '127.0.0.1';
  url.port = String(relay.port());
  return { url: url.toString(), cut: relay.stop };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A Redis of the test's own (never the machine's shared one), on a free port without persistence,
 * so a test can stop, freeze and restart it.
 */
export class PrivateRedis {
  private process: ChildProcess | null = null;

  private constructor(readonly port: number, readonly password: string | null) {}

  static async start(options: { password?: string } = {}): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort(), options.password ?? null);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://${this.password === null ? '' : `:${this.password}@`}127.0.0.1:${this.port}`;
  }

  /** Starts the server (again, on the same port) and waits until it answers PING. */
  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    if (this.password !== null) args.push('--requirepass', this.password);
    this.process = spawn('redis-server', args, { stdio: 'ignore' });
    const client = new Redis(this.url, { lazyConnect: true, retryStrategy: () => 20, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      for (let attempt = 0; attempt < 250; attempt++) {
        if ((await client.connect().then(() => client.ping(), () => null)) === 'PONG') return;
        client.disconnect();
        await sleep(20);
      }
      throw new Error(`redis-server on port ${this.port} did not start`);
    } finally {
      client.disconnect();
    }
  }

  /** Kills the server and waits until it has exited. */
  async stop(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (child === null || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Freezes the server: connections stay open, nothing is answered (a hung Redis). */
  freeze(): void {
    this.process?.kill('SIGSTOP');
  }

  thaw(): void {
    this.process?.kill('SIGCONT');
  }
}
