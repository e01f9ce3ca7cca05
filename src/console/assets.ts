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
export const FAVICON_PATH = '/favicon.svg';
/** Browsers ask for `/favicon.ico` on their own, whatever the page links: it gets the same icon. */
export const FAVICON_ICO_PATH = '/favicon.ico';

/** The console's icon: a small SVG kept in the source (no file to build), served under both addresses. */
const FAVICON_SVG = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#0b57d0"/>
<path d="M9 24 16 8l7 16M11.5 18.5h9" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`);

export const FAVICONS: readonly ConsoleAsset[] = [FAVICON_PATH, FAVICON_ICO_PATH].map((path) => ({
  path, contentType: 'image/svg+xml', body: FAVICON_SVG,
}));

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
  return { assets: [...assets, ...FAVICONS], missing };
}
