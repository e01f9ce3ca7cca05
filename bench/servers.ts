import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Servers under load run in their own processes so the load generator (in this process) does not
 * steal their event loop; both sides of a comparison are started the same way.
 */
export interface ChildServer {
  url: string;
  apiKey: string;
  /**
   * The child's resident set size in bytes, measured after a full GC (the child runs with
   * --expose-gc), and the CPU time it has used so far in microseconds.
   */
  probe?(): Promise<{ rss: number; cpuMicros: number }>;
  close(): Promise<void>;
}

export async function startChildServer(kind: string, args: Record<string, unknown> = {}): Promise<ChildServer> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./server-child.js', import.meta.url)), [kind, JSON.stringify(args)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, '--expose-gc'],
  });
  const ready = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; apiKey: string }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return {
    ...ready,
    probe: () =>
      new Promise<{ rss: number; cpuMicros: number }>((resolve) => {
        child.once('message', (m) => resolve(m as { rss: number; cpuMicros: number }));
        child.send({ type: 'probe' });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
