import type { Browser } from 'playwright-core';
import type { FakeLlmServer, FakeLlmServerOptions } from '../fakes/fake-llm-server.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import { startTestApp, type TestApp } from './app.js';
import { launchChromium } from './browser.js';

export interface ConsoleApp {
  t: TestApp;
  /** The fake OpenAI server behind the `openai` provider; the offline provider stays the default. */
  upstream: FakeLlmServer;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * What the console's browser tests run against: the real app with the offline provider as the
 * default and an `openai` provider answered by a fake server (so a test can queue a streamed or
 * priced answer), and one Chromium.
 */
export async function startConsoleApp(options: {
  upstream?: FakeLlmServerOptions;
  /** More settings of the `openai` provider (its price). */
  openai?: Record<string, unknown>;
  /** More top-level config (`max_spend_usd`). */
  config?: Record<string, unknown>;
} = {}): Promise<ConsoleApp> {
  const upstream = await startFakeOpenAI(options.upstream);
  const t = await startTestApp({
    env: { OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' },
    config: {
      ...options.config,
      providers: {
        default: 'offline',
        openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: upstream.baseUrl, ...options.openai },
      },
      network: { allowed_hosts: [upstream.host] },
    },
  });
  const browser = await launchChromium();
  return {
    t, upstream, browser,
    close: async () => {
      await browser.close();
      await t.close();
      await upstream.close();
    },
  };
}
