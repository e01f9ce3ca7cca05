import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { ListenError } from '../src/listen-error.js';
import { createMemoryLogger } from '../src/log.js';

let home: string;
let blocker: Server | null = null;
const apps: App[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  blocker = null;
  rmSync(home, { recursive: true, force: true });
});

async function takenPort(): Promise<number> {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
  return (blocker.address() as { port: number }).port;
}

const open = async (config: Record<string, unknown>) => {
  const app = await createApp({ home, env: {}, log: createMemoryLogger(), config: { api: { api_key: 'k', port: 0 }, ...config } });
  apps.push(app);
  return app;
};

describe('the app lifecycle', () => {
  it('stops what it had started when the webhook listener cannot bind: the REST listener, the URL file and the home lock', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentd-lifecycle-'));
    const port = await takenPort();
    const app = await open({ webhook: { enabled: true, port, secret: 's3cret-value' } });
    const failure = await app.listen().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ListenError);
    expect((failure as ListenError).listener).toBe('webhook channel');
    // Stopped without close(): the REST port is free, its URL file gone, and the home can be opened again.
    await expect(fetch(`http://127.0.0.1:${app.port}/healthz`)).rejects.toThrow();
    expect(existsSync(join(home, 'agentd.url'))).toBe(false);
    const again = await open({});
    expect(await again.listen()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
