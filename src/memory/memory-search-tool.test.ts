import { beforeEach, expect, it } from 'vitest';
import { memoryStorage } from '../../test/helpers/storage.js';
import { createMemorySearchTool } from './memory-search-tool.js';
import type { TurnStore } from '../storage/ports/turns.js';

let store: TurnStore;
/** An API run's context unless told otherwise; `null`: a context that does not say. */
const context = (sessionId: string, origin: 'api' | 'channel' | null = 'api') =>
  ({ sessionId, ...(origin === null ? {} : { origin }), signal: new AbortController().signal });

beforeEach(() => {
  store = memoryStorage().turns;
});

it('declares its name and JSON schema', () => {
  const tool = createMemorySearchTool(store);
  expect(tool.name).toBe('memory_search');
  expect(tool.description.length).toBeGreaterThan(20);
  expect(tool.schema).toMatchObject({
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: 20 },
      session_only: { type: 'boolean' },
    },
  });
});

it('lists matching turns as text, best first, optionally only this session', async () => {
  const [mine] = await store.addMany([{ session_id: 'sess_me', role: 'user', provider: 'offline', content: 'the launch code word is tangerine' }]);
  await store.addMany([{ session_id: 'sess_other', role: 'assistant', provider: 'offline', content: 'tangerine tangerine orchard' }]);
  const tool = createMemorySearchTool(store);

  const all = await tool.run({ query: 'tangerine' }, context('sess_me'));
  const lines = all.split('\n');
  expect(lines[0]).toBe('2 stored turn(s) match "tangerine", best first:');
  expect(lines[1]).toContain('assistant in session sess_other');
  expect(lines[2]).toContain(`user in session sess_me (turn ${mine!.id})`);
  expect(lines[2]).toContain('the launch code word is tangerine');

  const own = await tool.run({ query: 'tangerine', session_only: true, limit: 1 }, context('sess_me'));
  expect(own.split('\n')).toHaveLength(2);
  expect(own).toContain('in this session');
  expect(own).toContain(mine!.id);

  expect(await tool.run({ query: 'NEAR(kumquat*)' }, context('sess_me'))).toBe('No stored turns match "NEAR(kumquat*)".');
});

it('confines a channel\'s run (or one of unknown origin) to its own session, whatever the model asks, unless the scope is all', async () => {
  await store.addMany([{ session_id: 'ses_api', role: 'user', provider: 'offline', content: 'my bank PIN is 4711' }]);
  await store.addMany([{ session_id: 'webhook:mallory', role: 'user', provider: 'offline', content: 'my locker PIN is 9182' }]);
  const confined = createMemorySearchTool(store);
  for (const origin of ['channel', null] as const) {
    for (const args of [{ query: 'PIN' }, { query: 'PIN', session_only: false }, { query: 'PIN', session_only: true }]) {
      const found = await confined.run(args, context('webhook:mallory', origin));
      expect(found, JSON.stringify([origin, args])).toContain('9182');
      expect(found, JSON.stringify([origin, args])).not.toContain('4711');
      expect(found).toContain('in this session');
    }
    expect(await confined.run({ query: 'bank' }, context('job:job_1', origin))).toBe('No stored turns match "bank" in this session.');
  }
  // An API run searches every session unless it asks for its own.
  expect(await confined.run({ query: 'PIN' }, context('ses_api', 'api'))).toContain('4711');
  expect(await confined.run({ query: 'PIN' }, context('ses_api', 'api'))).toContain('9182');
  expect(await confined.run({ query: 'PIN', session_only: true }, context('ses_api', 'api'))).not.toContain('9182');

  const open = createMemorySearchTool(store, { channelScope: 'all' });
  const everything = await open.run({ query: 'PIN', session_only: false }, context('webhook:mallory', 'channel'));
  expect(everything).toContain('4711');
  expect(everything).toContain('9182');
  expect(await open.run({ query: 'PIN', session_only: true }, context('webhook:mallory', 'channel'))).not.toContain('4711');
});

it('refuses bad arguments with a message the model can act on', async () => {
  const tool = createMemorySearchTool(store);
  await expect(tool.run({}, context('s'))).rejects.toThrow('query must be a non-empty string');
  await expect(tool.run({ query: 'x', limit: 21 }, context('s'))).rejects.toThrow('limit must be an integer from 1 to 20');
  await expect(tool.run({ query: 'x', limit: 2.5 }, context('s'))).rejects.toThrow(/limit/);
  await expect(tool.run({ query: 'x', session_only: 'yes' }, context('s'))).rejects.toThrow('session_only must be a boolean');
  const many = Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ');
  await expect(tool.run({ query: many }, context('s'))).rejects.toThrow('at most 32 distinct words');
});
