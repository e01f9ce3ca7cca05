import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../src/storage/sqlite/index.js';
import { eventually } from './helpers/agent.js';
import { serve, writeCrashConfig, type Served } from './crash/cycle.js';
import { FakeDiscordGateway } from './fakes/discord-gateway.js';
import { startFakeDiscordRest } from './fakes/discord-rest.js';
import { startFakeOpenAI } from './fakes/openai-server.js';

/**
 * `kill -9` of `agentd serve` (the built CLI, SQLite home) with a Discord message stored and not
 * yet run: the next start runs it and answers it exactly once (docs/discord.md#storage-and-runs).
 * The message is held back the way the service holds it, behind a slow run on the same channel
 * session (one run at a time per session), so the kill lands while it is stored and waiting.
 */

const TOKEN = 'OTk5.agentd-crash-bot-token.never-shown';
const BOT = '900000000000000001';
const GUILD = '800000000000000001';
const CHANNEL = '700000000000000001';
const USER = '600000000000000001';
const FIRST = '1300000000000000101';
const SECOND = '1300000000000000102';
const SECOND_PROMPT = 'what is the capital of Peru?';
const ENV = { DISCORD_BOT_TOKEN: TOKEN, OPENAI_API_KEY: 'sk-test-openai-0123456789abcdefghij' };

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function started(home: string): Promise<Served> {
  const served = await serve(home, ENV);
  cleanups.push(async () => {
    if (served.child.exitCode === null && served.child.signalCode === null) {
      served.child.kill('SIGKILL');
      await served.exited;
    }
  });
  return served;
}

function mention(id: string, text: string) {
  return {
    id, channel_id: CHANNEL, guild_id: GUILD, author: { id: USER, username: 'alice' }, content: `<@${BOT}> ${text}`,
    mentions: [{ id: BOT, username: 'agentd-bot' }], type: 0, timestamp: new Date().toISOString(), tts: false,
    mention_everyone: false, attachments: [], embeds: [],
  };
}

/** Reads the home's database read-only, while (or after) a service process writes it. */
function readDb<T>(home: string, read: (db: Database['db']) => T): T {
  const store = new Database(join(home, 'agentd.db'), undefined, { readonly: true });
  try {
    return read(store.db);
  } finally {
    store.close();
  }
}

interface InboxRow {
  run_id: string;
  waiting: number;
}
const inboxRow = (home: string, messageId: string) =>
  readDb(home, (db) => db.prepare("SELECT run_id, waiting FROM channel_inbox WHERE channel = 'discord' AND json_extract(metadata, '$.message_id') = ?").get(messageId) as InboxRow | undefined);

describe('Discord across kill -9', () => {
  it('answers a message that was stored and not yet run exactly once after a restart', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentd-discord-crash-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const gateway = await FakeDiscordGateway.start({ token: TOKEN, heartbeatIntervalMs: 1_000 });
    cleanups.push(() => gateway.close());
    const rest = await startFakeDiscordRest({ token: TOKEN, gatewayUrl: gateway.wsUrl });
    cleanups.push(() => rest.close());
    // Slow at first: the first run holds the channel's session while the kill comes.
    const llm = await startFakeOpenAI({ delayMs: 60_000 });
    cleanups.push(() => llm.close());
    writeCrashConfig(home, {
      extra: [
        `discord: ${JSON.stringify({ enabled: true, allowed_guilds: [GUILD], allowed_channels: [CHANNEL], allowed_users: [USER], api_base_url: rest.baseUrl, provider: 'openai' })}`,
        `providers: ${JSON.stringify({ openai: { api_key_env: 'OPENAI_API_KEY', model: 'gpt-4.1-mini', base_url: llm.baseUrl } })}`,
        `network: ${JSON.stringify({ allowed_hosts: [llm.host], discord_allowed_hosts: [rest.host, `127.0.0.1:${gateway.port}`] })}`,
      ],
    });

    const first = await started(home);
    await eventually(() => gateway.identifies.length === 1 && gateway.connected === 1, 20_000);
    gateway.dispatch('MESSAGE_CREATE', mention(FIRST, 'tell me a long story'));
    // "typing…" is posted once the first message's run exists; its upstream call now hangs.
    await eventually(() => rest.requests.some((r) => r.path === `/channels/${CHANNEL}/typing`), 20_000);
    await eventually(() => llm.requests.length === 1, 20_000);
    gateway.dispatch('MESSAGE_CREATE', mention(SECOND, SECOND_PROMPT));
    const stored = await eventually(() => inboxRow(home, SECOND), 20_000);
    // Stored, waiting behind the first run, and nothing answered yet.
    expect(stored).toMatchObject({ run_id: expect.stringMatching(/^run_/), waiting: 1 });
    expect(readDb(home, (db) => db.prepare('SELECT count(*) FROM runs WHERE id = ?').pluck().get(stored.run_id))).toBe(0);
    expect(rest.messages).toEqual([]);

    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    expect(first.child.signalCode).toBe('SIGKILL');

    llm.setDelay(0);
    llm.enqueue({ text: 'Lima is the capital of Peru.' });
    await started(home);
    const [reply] = await rest.waitForMessages(1, 30_000);
    expect(reply).toMatchObject({ replyTo: SECOND, channel_id: CHANNEL, content: 'Lima is the capital of Peru.' });
    // A second answer would come soon after the first: wait a while for one that must not come.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(rest.messages.filter((m) => m.replyTo === SECOND)).toHaveLength(1);

    // It ran once, under the id chosen when it was stored, to its end; the upstream saw it once.
    const runs = await eventually(() => {
      const rows = readDb(home, (db) => db.prepare("SELECT id, status, session_id, source FROM runs WHERE message = ?").all(SECOND_PROMPT));
      return rows.length > 0 ? rows : undefined;
    });
    expect(runs).toEqual([{ id: stored.run_id, status: 'complete', session_id: `discord:${CHANNEL}`, source: 'discord' }]);
    expect(llm.requests.filter((r) => JSON.stringify(r.body).includes(SECOND_PROMPT))).toHaveLength(1);
    expect(inboxRow(home, SECOND)?.waiting).toBe(0);
    // The run the kill interrupted keeps its terminal state and is not run again.
    expect(readDb(home, (db) => db.prepare("SELECT status, error FROM runs WHERE message LIKE '%long story%'").all()))
      .toEqual([{ status: 'error', error: 'interrupted by restart' }]);
  }, 90_000);
});
