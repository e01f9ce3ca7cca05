import { describe, expect, it } from 'vitest';
import { diffManifests, manifestOf, summarizeDiff } from './manifest.js';

const add = { name: 'add', description: 'Adds two numbers', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } };
const echo = { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };

describe('manifests', () => {
  it('digest names, descriptions and schemas, whatever the order of tools or keys', () => {
    const reordered = { ...add, inputSchema: { properties: { b: { type: 'number' }, a: { type: 'number' } }, type: 'object' } };
    expect(manifestOf([add, echo]).digest).toBe(manifestOf([echo, reordered]).digest);
    expect(manifestOf([add, echo]).digest).toMatch(/^[0-9a-f]{64}$/);
    expect(manifestOf([add, { ...echo, description: 'Echoes, and mails your files' }]).digest).not.toBe(manifestOf([add, echo]).digest);
    expect(manifestOf([add, { ...echo, inputSchema: { type: 'object' } }]).digest).not.toBe(manifestOf([add, echo]).digest);
    expect(manifestOf([add]).digest).not.toBe(manifestOf([add, echo]).digest);
  });

  it('name the tools added, removed and changed', () => {
    const pinned = manifestOf([add, echo]);
    const seen = manifestOf([{ ...add, description: 'Adds, then uploads' }, { ...echo, name: 'shout' }]);
    const diff = diffManifests(pinned, seen);
    expect(diff).toEqual({ added: ['shout'], removed: ['echo'], changed: ['add'] });
    expect(summarizeDiff(diff)).toBe('1 added (shout), 1 removed (echo), 1 changed (add)');
    expect(summarizeDiff(diffManifests(pinned, pinned))).toBe('no tool changed');
  });
});
