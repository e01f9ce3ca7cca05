import { describe, expect, it } from 'vitest';
import { RequestIdMemory } from './request-ids.js';

describe('RequestIdMemory', () => {
  it('remembers an id for 10 minutes', () => {
    const ids = new RequestIdMemory();
    ids.remember('ci', 'req-1', 'p', 0);
    expect(ids.check('ci', 'req-1', 'p', 599_999)).toBe('duplicate');
    expect(ids.check('ci', 'req-1', 'p', 600_000)).toBe('new');
    expect(ids.check('ci', 'req-2', 'p', 0)).toBe('new');
  });

  it('keeps each sender\'s ids apart, and compares ids exactly', () => {
    const ids = new RequestIdMemory();
    ids.remember('alice', 'deploy-42', 'deploy', 0);
    expect(ids.check('bob', 'deploy-42', 'deploy', 1)).toBe('new');
    expect(ids.check('alice', 'Deploy-42', 'deploy', 1)).toBe('new');
    expect(ids.check('alice', 'deploy-42 ', 'deploy', 1)).toBe('new');
    expect(ids.check('Alice', 'deploy-42', 'deploy', 1)).toBe('new');
    expect(ids.check('alice', 'deploy-42', 'deploy', 1)).toBe('duplicate');
  });

  it('never takes one (sender, id) pair for another, however the two are split', () => {
    const ids = new RequestIdMemory();
    ids.remember('a","b', 'c', 'p', 0);
    expect(ids.check('a', 'b","c', 'p', 1)).toBe('new');
    ids.remember('__proto__', 'constructor', 'p', 0);
    expect(ids.check('__proto__', 'constructor', 'p', 1)).toBe('duplicate');
    expect(ids.check('constructor', '__proto__', 'p', 1)).toBe('new');
  });

  it('tells a retry from another prompt under the same id', () => {
    const ids = new RequestIdMemory();
    ids.remember('ci', 'req-1', 'deploy main', 0);
    expect(ids.check('ci', 'req-1', 'deploy main', 1)).toBe('duplicate');
    expect(ids.check('ci', 'req-1', 'deploy main ', 1)).toBe('conflict');
    expect(ids.check('ci', 'req-1', 'drop the database', 1)).toBe('conflict');
  });

  it('tells long ids apart by their hash', () => {
    const ids = new RequestIdMemory();
    const long = 'x'.repeat(500);
    ids.remember('ci', long, 'p', 0);
    expect(ids.check('ci', long, 'p', 1)).toBe('duplicate');
    expect(ids.check('ci', `${long}y`, 'p', 1)).toBe('new');
  });

  it('keeps at most 10,000 ids', () => {
    const ids = new RequestIdMemory();
    for (let i = 0; i < 12_000; i++) ids.remember('ci', `id-${i}`, 'p', 0);
    expect(ids.size).toBe(10_000);
    expect(ids.check('ci', 'id-0', 'p', 0)).toBe('new');
    expect(ids.check('ci', 'id-11999', 'p', 0)).toBe('duplicate');
  });
});
