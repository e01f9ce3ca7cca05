import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { createMemoryLogger } from '../src/log.js';

/** Child-process entry of bench servers: `bare` (node:http baseline) or `agentd` (the real app). */
const [kind = 'bare', rawArgs = '{}'] = process.argv.slice(2);
const args = JSON.parse(rawArgs) as Record<string, unknown>;
const API_KEY = 'bench-key-0123456789abcdef';

/**
 * The longest the event loop was blocked since the parent last asked: the longest gap between the
 * ticks of a 2 ms timer, in wall time, and the most CPU time the process used within one gap. On a
 * machine other processes share, a wall gap can be time this one was not scheduled at all; the
 * CPU figure is the work it did itself.
 */
const TICK_MS = 2;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
let last = { wall: performance.now(), cpu: cpuMs() };
let longest = { wallMs: 0, cpuMs: 0 };
setInterval(() => {
  const now = { wall: performance.now(), cpu: cpuMs() };
  longest = { wallMs: Math.max(longest.wallMs, now.wall - last.wall - TICK_MS), cpuMs: Math.max(longest.cpuMs, now.cpu - last.cpu) };
  last = now;
}, TICK_MS).unref();

process.on('message', (message: { type?: string }) => {
  if (message?.type === 'loop') {
    process.send?.(longest);
    longest = { wallMs: 0, cpuMs: 0 };
    return;
  }
  if (message?.type !== 'probe') return;
  // Memory probes: a full collection first, so the figure is live memory, not garbage.
  (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  process.send?.({ rss: process.memoryUsage().rss, cpuMicros: cpu.user + cpu.system });
});

async function main(): Promise<void> {
  if (kind === 'bare') {
    const body = JSON.stringify({ status: 'ok', data: { status: 'healthy', version: '0.0.0' } });
    const answer = (res: import('node:http').ServerResponse) => {
      res.writeHead(Number(args.status ?? 200), { 'content-type': 'application/json' });
      res.end(body);
    };
    const server = createServer((req, res) => {
      if (req.method === 'GET' || req.method === 'HEAD') return answer(res);
      // A request with a body is read to its end first, as any real handler would.
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: '' });
    process.on('SIGTERM', () => server.close(() => process.exit(0)));
    return;
  }
  const home = mkdtempSync(join(tmpdir(), 'agentd-bench-'));
  const app = await createApp({
    home,
    env: (args.env as NodeJS.ProcessEnv | undefined) ?? {},
    log: createMemoryLogger(),
    config: { api: { api_key: API_KEY, port: 0, rate_limit_rpm: 1_000_000_000 }, ...(args.config as object) },
  });
  const url = await app.listen();
  process.send?.({ url, apiKey: API_KEY });
  process.on('SIGTERM', () => {
    void app.close().finally(() => {
      rmSync(home, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

void main();
