import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One built file of the console, held in memory: it is small and served on every page load. */
export interface ConsoleAsset {
  /** Address the browser asks for. */
  path: string;
  contentType: string;
  body: Buffer | null;
}

/** What `npm run build` bundles into `dist/console` (scripts/build-console.mjs). */
const BUILT_FILES = [
  { file: 'console.js', contentType: 'text/javascript; charset=utf-8' },
  { file: 'login.js', contentType: 'text/javascript; charset=utf-8' },
  { file: 'console.css', contentType: 'text/css; charset=utf-8' },
] as const;

export const CONSOLE_SCRIPT_PATH = '/assets/console.js';
export const CONSOLE_STYLE_PATH = '/assets/console.css';
export const LOGIN_SCRIPT_PATH = '/assets/login.js';
/** Asked for by browsers on every page load whatever the page says; answered with no content. */
export const FAVICON_PATH = '/favicon.ico';

/**
 * The console's script and stylesheet, read once from `dir`. A file that is missing (a checkout
 * that was never built) has a null body: its address answers 404 and `missing` names it, so the
 * service still starts and says what to do.
 */
export function loadConsoleAssets(dir: string): { assets: ConsoleAsset[]; missing: string[] } {
  const missing: string[] = [];
  const assets = BUILT_FILES.map(({ file, contentType }) => {
    let body: Buffer | null = null;
    try {
      body = readFileSync(join(dir, file));
    } catch {
      missing.push(join(dir, file));
    }
    return { path: `/assets/${file}`, contentType, body };
  });
  return { assets, missing };
}
