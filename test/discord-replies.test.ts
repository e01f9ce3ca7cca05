import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscordRest, type FakeDiscordRest } from './fakes/discord-rest.js';
import { tempAudit, type TempAudit } from './helpers/audit.js';
import { createMemoryLogger } from '../src/log.js';
import { DiscordAudit } from '../src/channels/discord/audit.js';
import { DiscordReplies } from '../src/channels/discord/replies.js';
import { DiscordRest } from '../src/channels/discord/rest.js';

const TOKEN = 'replies-test-token';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(): Promise<{ fake: FakeDiscordRest; replies: DiscordReplies; store: TempAudit }> {
  const fake = await startFakeDiscordRest({ token: TOKEN });
  cleanups.push(() => fake.close());
  const store = tempAudit();
  cleanups.push(() => store.close());
  // The plain platform fetch stands in for the gateway's here: this is about what is sent and when.
  const rest = new DiscordRest({ apiBaseUrl: fake.baseUrl, token: TOKEN, fetch: (url, init) => globalThis.fetch(url, init) });
  cleanups.push(() => rest.close());
  const log = createMemoryLogger();
  const replies = new DiscordReplies({
    rest, log, audit: new DiscordAudit(store.audit, log, Date.now), consoleUrl: () => 'http://agentd.test',
    runs: { watchRun: async () => ({ found: false }) }, typingIntervalMs: 100,
  });
  return { fake, replies, store };
}

const typingCount = (fake: FakeDiscordRest) => fake.requests.filter((r) => r.path.endsWith('/typing')).length;

describe('DiscordReplies', () => {
  it('repeats "typing…" while the run works and stops once it answers', async () => {
    const { fake, replies } = await setup();
    const target = { channelId: '20', messageId: '1', runId: 'run_a' };
    replies.working(target);
    await new Promise((resolve) => setTimeout(resolve, 450));
    const whileWorking = typingCount(fake);
    expect(whileWorking).toBeGreaterThanOrEqual(4);
    replies.answer(target, 'done', { runId: 'run_a', failed: false });
    await fake.waitForMessages(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(typingCount(fake)).toBeLessThanOrEqual(whileWorking + 1);
    expect(fake.messages.map((m) => [m.content, m.replyTo])).toEqual([['done', '1']]);
  });

  it("posts a channel's replies in the order the runs ended, even when the first waits out a rate limit", async () => {
    const { fake, replies } = await setup();
    fake.rateLimit('messages', 1, 0.5);
    replies.answer({ channelId: '20', messageId: '1', runId: 'run_1' }, 'first', { runId: 'run_1', failed: false });
    replies.answer({ channelId: '20', messageId: '2', runId: 'run_2' }, 'second', { runId: 'run_2', failed: false });
    const posted = await fake.waitForMessages(2);
    expect(posted.map((m) => m.content)).toEqual(['first', 'second']);
  });

  it('waits for replies being posted when it stops', async () => {
    const { fake, replies } = await setup();
    fake.rateLimit('messages', 1, 0.4);
    replies.answer({ channelId: '20', messageId: '1', runId: 'run_1' }, 'late', { runId: 'run_1', failed: false });
    await replies.stop();
    expect(fake.messages.map((m) => m.content)).toEqual(['late']);
  });
});
