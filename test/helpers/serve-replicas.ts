import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_KEY, SECRET, serve, writeCrashConfig, type Served } from '../crash/cycle.js';
import type { FakeLlmServer } from '../fakes/fake-llm-server.js';
import { rawGet, type RawStream } from './agent.js';

/**
 * N `agentd serve` child processes, each with its own home and ports, on one PostgreSQL database
 * and one Redis: replicas of one service as an operator runs them behind a load balancer. The
 * default provider is a fake OpenAI server the test controls (slow when it says so).
 */
export interface ReplicaSetOptions {
  count: number;
  postgresUrl: string;
  redisUrl: string;
  /** Replica `index`'s own way to that Redis (a proxy that can hang), instead of `redisUrl`. */
  redisUrlOf?: (index: number) => string | undefined;
  upstream: FakeLlmServer;
  /** `api.rate_limit_rpm` of every replica (one limit for the whole service). */
  rateLimitRpm: number;
}

const OPENAI_KEY = 'sk-test-openai-key-000000000000';
let clientCounter = 0;

/**
 * A client address nobody else uses (sent as X-Forwarded-For, the replicas trust it): only the
 * requests a test means to count share a rate-limit window.
 */
export function freshClientIp(): string {
  clientCounter++;
  return `10.${(clientCounter >> 16) & 255}.${(clientCounter >> 8) & 255}.${clientCounter & 255}`;
}

export class ReplicaSet {
  private constructor(readonly homes: string[], readonly served: (Served | null)[]) {}

  static async start(options: ReplicaSetOptions): Promise<ReplicaSet> {
    const homes = Array.from({ length: options.count }, () => mkdtempSync(join(tmpdir(), 'agentd-replica-')));
    for (const [index, home] of homes.entries()) {
      const redisUrl = options.redisUrlOf?.(index) ?? options.redisUrl;
      writeCrashConfig(home, {
        rateLimitRpm: options.rateLimitRpm,
        extra: [
          'storage:', '  backend: postgres', `  postgres_url: ${options.postgresUrl}`, `  redis_url: ${redisUrl}`, '  postgres_pool_size: 4',
          'providers:', '  default: openai',
          `  openai: { api_key_env: OPENAI_API_KEY, model: gpt-4.1-mini, base_url: "${options.upstream.baseUrl}" }`,
          'network:', `  allowed_hosts: ["${options.upstream.host}"]`,
        ],
      });
    }
    const started = await Promise.allSettled(homes.map((home) => serve(home, { OPENAI_API_KEY: OPENAI_KEY })));
    const set = new ReplicaSet(homes, started.map((s) => (s.status === 'fulfilled' ? s.value : null)));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await set.close();
      throw failed.reason;
    }
    return set;
  }

  get size(): number {
    return this.served.length;
  }

  private target(index: number): Served {
    const served = this.served[index];
    if (!served) throw new Error(`replica ${index} is not running`);
    return served;
  }

  /** A request to replica `index`'s API with the key (unless it brings its own), from `ip` (a fresh address unless given). */
  request(index: number, path: string, init: RequestInit & { ip?: string } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${API_KEY}`);
    headers.set('x-forwarded-for', init.ip ?? freshClientIp());
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${this.target(index).target.api}${path}`, { ...init, headers });
  }

  /** The envelope's status and body of a JSON request. */
  async json(index: number, path: string, init: RequestInit & { ip?: string } = {}): Promise<{ status: number; body: any }> {
    const response = await this.request(index, path, init);
    return { status: response.status, body: await response.json() };
  }

  post(index: number, path: string, body: unknown): Promise<{ status: number; body: any }> {
    return this.json(index, path, { method: 'POST', body: JSON.stringify(body) });
  }

  /** A run's event stream on replica `index`, read over a raw socket; `query` such as `?include=deltas`. */
  events(index: number, runId: string, lastEventId?: number, query = ''): Promise<RawStream> {
    return rawGet(this.target(index).target.api, `/api/v1/runs/${runId}/events${query}`, {
      authorization: `Bearer ${API_KEY}`, 'x-forwarded-for': freshClientIp(), ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    });
  }

  /** A signed webhook message to replica `index`'s listener; resolves with the status. */
  async webhook(index: number, sender: string, prompt: string): Promise<number> {
    const body = JSON.stringify({ prompt, sender });
    const response = await fetch(this.target(index).target.webhook, {
      method: 'POST', body,
      headers: {
        'content-type': 'application/json', 'x-request-id': randomUUID(), 'x-forwarded-for': freshClientIp(),
        'x-service-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** SIGKILL: the replica dies without a word to the others (its claims and runs are left as they were). */
  async kill(index: number): Promise<void> {
    const served = this.target(index);
    this.served[index] = null;
    served.child.kill('SIGKILL');
    await served.exited;
  }

  /** Stops every replica still running (SIGTERM, then SIGKILL after 10 s) and removes the homes. */
  async close(): Promise<void> {
    await Promise.all(this.served.map(async (served, index) => {
      if (!served) return;
      this.served[index] = null;
      if (served.child.exitCode !== null || served.child.signalCode !== null) return;
      const timer = setTimeout(() => served.child.kill('SIGKILL'), 10_000);
      served.child.kill('SIGTERM');
      await served.exited;
      clearTimeout(timer);
    }));
    for (const home of this.homes) rmSync(home, { recursive: true, force: true });
  }
}
