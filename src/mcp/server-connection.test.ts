import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../config/load.js';
import { ToolRegistry } from '../tools/registry.js';
import { ManifestPins } from './manifest-pins.js';
import { ServerConnection } from './server-connection.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A transport whose start fails, as a server that cannot be reached or started does. */
function failingTransport(): Transport {
  return {
    start: async () => {
      throw new Error('connect ECONNREFUSED');
    },
    send: async () => undefined,
    close: async () => undefined,
  };
}

describe('ServerConnection', () => {
  it('retries a server that cannot be reached with a delay that doubles up to the ceiling', async () => {
    vi.useFakeTimers();
    const [config] = parseConfig({ mcp: { servers: [{ name: 'down', url: 'http://127.0.0.1:9/mcp' }] } }).mcp.servers;
    const settings = new Map<string, string>();
    const opens: number[] = [];
    const connection = new ServerConnection({
      config: config!,
      open: () => {
        opens.push(Date.now());
        return { transport: failingTransport() };
      },
      pins: new ManifestPins({ get: async (key) => settings.get(key) ?? null, set: async (key, value) => void settings.set(key, value) }, Date.now),
      tools: new ToolRegistry(),
      audit: { emit: async () => { throw new Error('nothing to audit'); } },
      now: Date.now,
      backoff: { initialMs: 100, maxMs: 800 },
    });
    connection.start();
    await vi.advanceTimersByTimeAsync(5_000);
    const gaps = opens.slice(1).map((at, i) => at - opens[i]!);
    expect(gaps.slice(0, 6)).toEqual([100, 200, 400, 800, 800, 800]);
    expect(connection.status()).toMatchObject({ state: 'disconnected', connected: false, tool_count: 0, last_error: 'connect ECONNREFUSED' });
    await connection.close();
    const count = opens.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(opens.length).toBe(count);
  });
});
