// Bundles the operator console (src/console/ui) into dist/console: its script, the login page's and one stylesheet,
// served by agentd itself. Run by `npm run build` after tsc, so every install and test has them.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

await build({
  absWorkingDir: root,
  entryPoints: ['src/console/ui/console.tsx', 'src/console/ui/login.ts', 'src/console/ui/console.css'],
  outdir: 'dist/console',
  bundle: true,
  format: 'esm',
  // Browsers of the last few years; nothing is transpiled down further.
  target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
