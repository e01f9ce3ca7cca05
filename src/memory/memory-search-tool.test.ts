import { beforeEach, expect, it } from 'vitest';
import { memoryStorage } from '../../test/helpers/storage.js';
import { createMemorySearchTool } from './memory-search-tool.js';
import type { TurnStore } from './types.js';

let store: TurnStore;
const context = (sessionId: string) => ({ sessionId, signal: new AbortController().signal });

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

it('refuses bad arguments with a message the model can act on', async () => {
  const tool = createMemorySearchTool(store);
  await expect(tool.run({}, context('s'))).rejects.toThrow('query must be a non-empty string');
  await expect(tool.run({ query: 'x', limit: 21 }, context('s'))).rejects.toThrow('limit must be an integer from 1 to 20');
  await expect(tool.run({ query: 'x', limit: 2.5 }, context('s'))).rejects.toThrow(/limit/);
  await expect(tool.run({ query: 'x', session_only: 'yes' }, context('s'))).rejects.toThrow('session_only must be a boolean');
  const many = Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ');
  await expect(tool.run({ query: many }, context('s'))).rejects.toThrow('at most 32 distinct words');
});
