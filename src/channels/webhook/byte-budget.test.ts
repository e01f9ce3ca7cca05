import { describe, expect, it } from 'vitest';
import { ByteBudget } from './byte-budget.js';

describe('ByteBudget', () => {
  it('grants reservations up to the limit and refuses past it', () => {
    const budget = new ByteBudget(100);
    expect(budget.tryReserve(60)).toBe(true);
    expect(budget.tryReserve(40)).toBe(true);
    expect(budget.tryReserve(1)).toBe(false);
    expect(budget.inUse).toBe(100);
  });

  it('frees room on release', () => {
    const budget = new ByteBudget(100);
    budget.tryReserve(100);
    budget.release(30);
    expect(budget.tryReserve(30)).toBe(true);
    expect(budget.tryReserve(1)).toBe(false);
  });

  it('always grants an empty reservation while not over the limit', () => {
    const budget = new ByteBudget(10);
    budget.tryReserve(10);
    expect(budget.tryReserve(0)).toBe(true);
  });
});
