import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The storage seam: the domain sees the ports (store interfaces) only. A backend is a folder of its
 * own under src/storage/, reached through the backend registry alone, built from the ports, the
 * helpers backends share, config and security; the database drivers stay inside their backend.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const REGISTRY = 'storage/registry.ts';
const BACKENDS = ['sqlite', 'postgres'];
/** What a backend may be built from, besides its own folder. */
const BACKEND_MAY_IMPORT = ['storage/ports/', 'storage/shared/', 'config/', 'security/', 'log.ts'];
/** What the ports may import besides each other: the config's type and the one logger shape (leaves). */
const PORTS_MAY_IMPORT = ['config/schema.ts', 'log.ts'];
/** Each driver and the one backend folder that may load it. */
const DRIVERS: Record<string, string> = { 'better-sqlite3': 'storage/sqlite/', pg: 'storage/postgres/' };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Static, bare and dynamic imports (`import('./postgres/index.js')` counts too). */
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g;

/** What a file imports: packages by name, project files as paths relative to src/. */
function imports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => {
    const target = (match[1] ?? match[2])!;
    return target.startsWith('.') ? relative(SRC, resolve(dirname(file), target)).replace(/\.js$/, '.ts') : target;
  });
}

/** Every import of the project's sources that breaks a rule, as "file imports target (rule)". */
function storageViolations(files: { path: string; imports: string[] }[]): string[] {
  const violations: string[] = [];
  for (const { path, imports: targets } of files) {
    const ownBackend = BACKENDS.find((name) => path.startsWith(`storage/${name}/`));
    for (const target of targets) {
      const flag = (rule: string) => violations.push(`${path} imports ${target} (${rule})`);
      if (target in DRIVERS && !path.startsWith(DRIVERS[target]!)) flag(`the driver belongs to ${DRIVERS[target]}`);
      const targetBackend = BACKENDS.find((name) => target.startsWith(`storage/${name}/`));
      if (targetBackend && targetBackend !== ownBackend && path !== REGISTRY) flag('a backend is reached through the registry');
      if (path.startsWith('storage/') && target.startsWith('http/')) flag('storage never imports http');
      const local = target.endsWith('.ts');
      if (ownBackend && local && !target.startsWith(`storage/${ownBackend}/`) && !BACKEND_MAY_IMPORT.some((allowed) => target.startsWith(allowed))) {
        flag(`a backend imports only ${BACKEND_MAY_IMPORT.join(', ')}`);
      }
      if (path.startsWith('storage/ports/') && local && !target.startsWith('storage/ports/') && !PORTS_MAY_IMPORT.includes(target)) {
        flag('the ports import nothing but each other (and the config type and the logger shape)');
      }
    }
  }
  return violations;
}

const project = () => sources(SRC).map((file) => ({ path: relative(SRC, file), imports: imports(file) }));

describe('the storage boundary', () => {
  it('holds in the sources', () => {
    expect(storageViolations(project())).toEqual([]);
  });

  it('reads the sources as it should (the scanner itself works)', () => {
    const files = project();
    const importersOf = (target: string) => files.filter((file) => file.imports.includes(target)).map((file) => file.path);
    expect(importersOf('better-sqlite3')).toContain('storage/sqlite/database.ts');
    expect(importersOf('pg')).toContain('storage/postgres/database.ts');
    expect(importersOf('storage/sqlite/backend.ts')).toEqual([REGISTRY]);
    expect(files.find((file) => file.path === 'storage/postgres/backend.ts')?.imports).toContain('storage/postgres/index.ts');
    expect(importersOf('storage/registry.ts')).toEqual(expect.arrayContaining(['cli.ts', 'doctor.ts']));
  });

  it('flags each kind of violation', () => {
    expect(storageViolations([
      { path: 'agent/runtime.ts', imports: ['pg', 'storage/sqlite/index.ts', 'storage/ports/runs.ts'] },
      { path: 'storage/ports/runs.ts', imports: ['http/errors.ts', 'agent/errors.ts'] },
      { path: 'storage/postgres/run-store.ts', imports: ['better-sqlite3', 'agent/types.ts', 'storage/sqlite/run-rows.ts', 'storage/shared/run-rows.ts', 'pg', 'node:fs', 'storage/postgres/database.ts'] },
      { path: 'storage/shared/slices.ts', imports: ['http/web-sessions.ts'] },
    ])).toEqual([
      'agent/runtime.ts imports pg (the driver belongs to storage/postgres/)',
      'agent/runtime.ts imports storage/sqlite/index.ts (a backend is reached through the registry)',
      'storage/ports/runs.ts imports http/errors.ts (storage never imports http)',
      'storage/ports/runs.ts imports http/errors.ts (the ports import nothing but each other (and the config type and the logger shape))',
      'storage/ports/runs.ts imports agent/errors.ts (the ports import nothing but each other (and the config type and the logger shape))',
      'storage/postgres/run-store.ts imports better-sqlite3 (the driver belongs to storage/sqlite/)',
      'storage/postgres/run-store.ts imports agent/types.ts (a backend imports only storage/ports/, storage/shared/, config/, security/, log.ts)',
      'storage/postgres/run-store.ts imports storage/sqlite/run-rows.ts (a backend is reached through the registry)',
      'storage/postgres/run-store.ts imports storage/sqlite/run-rows.ts (a backend imports only storage/ports/, storage/shared/, config/, security/, log.ts)',
      'storage/shared/slices.ts imports http/web-sessions.ts (storage never imports http)',
    ]);
  });
});
