import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from './log.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('createMemoryLogger', () => {
  it('keeps the last lines in order, as written (UTF-8 included), with their time as a date', () => {
    const log = createMemoryLogger(3);
    for (let i = 1; i <= 5; i++) log.info(`line ${i} — ünïcödé`, i % 2 === 0 ? { request_id: `req-${i}` } : undefined);
    const lines = log.lines;
    expect(lines.map((l) => l.slice(l.indexOf(' ') + 1))).toEqual([
      'info line 3 — ünïcödé',
      'info line 4 — ünïcödé request_id=req-4',
      'info line 5 — ünïcödé',
    ]);
    for (const line of lines) expect(line.split(' ')[0]).toMatch(ISO);
  });

  it('keeps a line longer than its slot whole, and the short lines around it', () => {
    const log = createMemoryLogger(2);
    const long = `long ${'ü'.repeat(400)} end`;
    log.info('before');
    log.info(long);
    log.info('after');
    log.info('last');
    expect(log.lines.map((l) => l.slice(l.indexOf(' ') + 1))).toEqual(['info after', 'info last']);
    log.info(long);
    expect(log.lines.map((l) => l.slice(l.indexOf(' ') + 1))).toEqual(['info last', `info ${long}`]);
  });

  it('censors secrets in messages before keeping them', () => {
    const log = createMemoryLogger();
    log.warn('upstream said: invalid key sk-ant-abcdefghijklmnopqrstuvwxyz');
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).not.toContain('sk-ant-abcdefghijklmnopqrstuvwxyz');
    expect(log.lines[0]).toContain('warn upstream said: invalid key');
  });
});
