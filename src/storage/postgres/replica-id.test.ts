import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { homeFile } from '../../config/home-layout.js';
import { replicaIdOf } from './replica-id.js';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

it('makes a replica id on first use and keeps it for the next start of the same home', () => {
  home = mkdtempSync(join(tmpdir(), 'agentd-replica-'));
  const id = replicaIdOf(home);
  expect(id).toMatch(/^rep_[A-Za-z0-9_-]{16}$/);
  expect(replicaIdOf(home)).toBe(id);
  expect(readFileSync(homeFile(home, 'replicaId'), 'utf8')).toBe(`${id}\n`);
  expect(statSync(homeFile(home, 'replicaId')).mode & 0o777).toBe(0o600);
  const other = mkdtempSync(join(tmpdir(), 'agentd-replica-'));
  try {
    expect(replicaIdOf(other)).not.toBe(id);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});
