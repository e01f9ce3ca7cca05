import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Servers under load run in their own processes so the load generator (in this process) does not
 * steal their event loop; both sides of a comparison are started the same way.
 */
export interface ChildServer {
  url: string;
  apiKey: string;
  /** The child's process id, to read its CPU time from /proc without disturbing it. */
  pid: number;
  /** The webhook channel's URL when the config enables it. */
  webhookUrl?: string;
  /**
   * The child's resident set size in bytes, measured after a full GC (the child runs with
   * --expose-gc), and the CPU time it has used so far in microseconds.
   */
  probe?(): Promise<{ rss: number; cpuMicros: number }>;
  /**
   * The longest the child's event loop was blocked since the previous call, in ms of wall time,
   * and the most CPU time the child used within one such gap.
   */
  loopMax?(): Promise<{ wallMs: number; cpuMs: number }>;
  /**
   * What the soak samples: RSS, heap, external and array-buffer memory after a full GC, active
   * handles, event-loop delay since the last sample.
   */
  sample?(): Promise<ProcessSample>;
  close(): Promise<void>;
}

export interface ProcessSample {
  rss: number;
  heapUsed: number;
  /** Memory of C++ objects bound to JavaScript ones (Buffers among them). */
  external: number;
  /** The part of `external` held by ArrayBuffers and Buffers. */
  arrayBuffers: number;
  handles: number;
  lag: { p99Ms: number; maxMs: number };
  /** The size of the database's write-ahead log: a log that never starts over grows with the load. */
  walBytes: number;
}

export async function startChildServer(kind: string, args: Record<string, unknown> = {}): Promise<ChildServer> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./server-child.js', import.meta.url)), [kind, JSON.stringify(args)], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, '--expose-gc'],
  });
  const ready = await new Promise<{ url: string; apiKey: string; webhookUrl?: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string; apiKey: string; webhookUrl?: string }));
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return {
    ...ready,
    pid: child.pid!,
    probe: () =>
      new Promise<{ rss: number; cpuMicros: number }>((resolve) => {
        child.once('message', (m) => resolve(m as { rss: number; cpuMicros: number }));
        child.send({ type: 'probe' });
      }),
    loopMax: () =>
      new Promise<{ wallMs: number; cpuMs: number }>((resolve) => {
        child.once('message', (m) => resolve(m as { wallMs: number; cpuMs: number }));
        child.send({ type: 'loop' });
      }),
    sample: () =>
      new Promise<ProcessSample>((resolve) => {
        child.once('message', (m) => resolve(m as ProcessSample));
        child.send({ type: 'sample' });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
