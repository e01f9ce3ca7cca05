import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface PackageInfo {
  root: string;
  version: string;
}

/** The agentd package.json above this file (works from src/ and dist/src/): its folder and version. */
function findPackage(): PackageInfo {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agentd' && pkg.version) return { root: dir, version: pkg.version };
    }
    dir = dirname(dir);
  }
  return { root: join(dirname(fileURLToPath(import.meta.url)), '..'), version: '0.0.0' };
}

const found = findPackage();

export const VERSION = found.version;

/** The package's folder: built assets live under its `dist/`, whether the code runs from src/ or dist/. */
export const PACKAGE_ROOT = found.root;
