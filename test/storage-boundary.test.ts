import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * The storage seam: the domain sees store interfaces only. The drivers (better-sqlite3, pg) are
 * imported under src/storage/ alone, and only the composition roots (app/storage.ts, cli.ts, through
 * storage/open.ts or directly) pick a backend.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const COMPOSITION_ROOTS = new Set([join('app', 'storage.ts'), 'cli.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/g;

function imports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => match[1]!);
}

const DRIVERS = new Set(['better-sqlite3', 'pg']);

it('imports the database drivers only under src/storage/, and a backend only from the composition roots', () => {
  const violations: string[] = [];
  for (const file of sources(SRC)) {
    const path = relative(SRC, file);
    if (path.startsWith('storage/')) continue;
    for (const target of imports(file)) {
      if (DRIVERS.has(target)) violations.push(`${path} imports ${target}`);
      if (/\/storage\/(sqlite|postgres)\//.test(target) && !COMPOSITION_ROOTS.has(path)) violations.push(`${path} imports ${target}`);
    }
  }
  expect(violations).toEqual([]);
});

it('finds what it looks for (the scanner itself works)', () => {
  const found = sources(SRC).filter((file) => imports(file).includes('better-sqlite3')).map((file) => relative(SRC, file));
  expect(found).toContain(join('storage', 'sqlite', 'database.ts'));
  expect(sources(SRC).filter((file) => imports(file).includes('pg')).map((file) => relative(SRC, file))).toContain(join('storage', 'postgres', 'database.ts'));
  expect(imports(join(SRC, 'cli.ts'))).toContain('./storage/sqlite/index.js');
  expect(imports(join(SRC, 'app', 'storage.ts'))).toContain('../storage/open.js');
});
