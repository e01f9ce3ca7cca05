import { spawn, type ChildProcess } from 'node:child_process';

/** A replica in a process of its own (`replica-process.mjs`, built code), which a test kills with SIGKILL. */
export interface ReplicaChild {
  child: ChildProcess;
  url: string;
  /** The webhook listener's port, NaN when the config has none. */
  webhookPort: number;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
}

export interface ReplicaChildOptions {
  home: string;
  /** The config file's content (its `api` is set here, with `apiKey` and a free port). */
  config: Record<string, unknown>;
  apiKey: string;
  env: Record<string, string>;
  leases: { sessionLeaseMs: number; heartbeatMs: number };
  redisKeyPrefix?: string;
}

export async function spawnReplicaChild(options: ReplicaChildOptions): Promise<ReplicaChild> {
  const { leases } = options;
  const child = spawn(process.execPath, ['test/helpers/replica-process.mjs'], {
    env: {
      PATH: process.env.PATH ?? '', ...options.env, REPLICA_HOME: options.home,
      REPLICA_LEASE_MS: String(leases.sessionLeaseMs), REPLICA_HEARTBEAT_MS: String(leases.heartbeatMs),
      ...(options.redisKeyPrefix === undefined ? {} : { REPLICA_REDIS_PREFIX: options.redisKeyPrefix }),
      REPLICA_CONFIG: JSON.stringify({ ...options.config, api: { api_key: options.apiKey, port: 0 } }),
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const listening = /replica listening on (\S+)/.exec(out);
      if (listening) resolve(listening[1]!);
    });
    void exited.then(() => reject(new Error('the replica exited before it was ready')));
  });
  return {
    child,
    url,
    webhookPort: Number(/replica webhook on http:\/\/[^:]+:(\d+)/.exec(out)?.[1]),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
