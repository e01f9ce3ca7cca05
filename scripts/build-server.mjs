// Bundles the service (the `agentd` command) into dist/server: one file to read and compile at start
// instead of some 1,200 modules. Run by `npm run build` after tsc; the library (dist/src) stays as tsc wrote it.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// Chunk names carry a content hash: the chunks of an earlier build are removed, not left beside.
rmSync(`${root}/dist/server`, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  // The audit query worker is an entry of its own, written beside the chunks: the code that starts
  // it resolves `./audit-query-worker.js` next to itself, in dist/src and here alike.
  // The stack-trace mapper is one too: bin/agentd.js loads it before the service.
  entryPoints: {
    cli: 'src/cli.ts',
    'audit-query-worker': 'src/storage/sqlite/audit-query-worker.ts',
    'stack-traces': 'src/stack-traces/source-mapped.ts',
  },
  outdir: 'dist/server',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.18',
  // What is imported with import() (PostgreSQL, Redis, Discord, MCP, the hosted providers' SDKs)
  // goes to chunks of its own, read only when the config uses it.
  splitting: true,
  chunkNames: '[name]-[hash]',
  // Loaded from node_modules at run time: the native SQLite addon, the logger (its optional
  // pretty-printer is required by name), and the PostgreSQL and Redis drivers (imported only
  // when the config names them, and with optional parts of their own).
  external: ['better-sqlite3', 'pino', 'pino-pretty', 'pg', 'ioredis'],
  // Bundled CommonJS packages call require() for Node's own modules.
  banner: { js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);" },
  // Stack traces name the TypeScript sources (bin/agentd.js reads a map when a stack first needs it).
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  minifyWhitespace: true,
  // Lines stay short: Node prints the source line of an uncaught exception above its stack.
  lineLimit: 200,
  minifySyntax: true,
  logLevel: 'warning',
});
