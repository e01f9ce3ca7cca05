// Bundles the service (the `agentd` command) into dist/server: a few files to read and compile at
// start instead of some 1,200 modules. Run by `npm run build` after tsc; the library (dist/src) stays
// as tsc wrote it.
//
// Two steps. esbuild splits code only in ES-module output, so the service is first bundled as ES
// modules (what the config does not use stays in chunks of its own), then each file is rewritten as
// CommonJS: bin/agentd.js loads those through the bundle loader, which keeps V8's compiled code
// beside each file for the next start (docs/decisions.md#the-start-reuses-compiled-code); Node 20
// keeps no compiled code for ES modules.
import { build } from 'esbuild';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const modules = 'dist/server-modules';
// Chunk names carry a content hash: the chunks (and kept code) of an earlier build are removed, not left beside.
for (const dir of ['dist/server', modules]) rmSync(`${root}/${dir}`, { recursive: true, force: true });

const shared = {
  absWorkingDir: root,
  platform: 'node',
  target: 'node20.18',
  // Stack traces name the TypeScript sources (the second step reads the first step's maps).
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  minifyWhitespace: true,
  // Lines stay short: Node prints the source line of an uncaught exception above its stack.
  lineLimit: 200,
  minifySyntax: true,
  logLevel: 'warning',
};

await build({
  ...shared,
  entryPoints: {
    cli: 'src/cli.ts',
    // The audit query worker is an entry of its own, written beside the chunks: the code that starts
    // it resolves `./audit-query-worker.js` next to itself, in dist/src and here alike.
    'audit-query-worker': 'src/storage/sqlite/audit-query-worker.ts',
    // bin/agentd.js loads these two before the service.
    'stack-traces': 'src/stack-traces/source-mapped.ts',
    'bundle-loader': 'src/code-cache/bundle-loader.ts',
  },
  outdir: modules,
  bundle: true,
  format: 'esm',
  // What is imported with import() (PostgreSQL, Redis, Discord, MCP, the hosted providers' SDKs)
  // goes to chunks of its own, read only when the config uses it.
  splitting: true,
  chunkNames: '[name]-[hash]',
  // Loaded from node_modules at run time: the native SQLite addon, the logger (its optional
  // pretty-printer is required by name), and the PostgreSQL and Redis drivers (imported only
  // when the config names them, and with optional parts of their own).
  external: ['better-sqlite3', 'pino', 'pino-pretty', 'pg', 'ioredis'],
});

// The first step's files are read as CommonJS-to-be, not as Node ES modules: `import()` of a chunk
// then gives its exports as they are (a chunk's `default` stays the default), as in the first
// step's ES modules, rather than Node's view of a CommonJS file (`default` = the whole exports).
writeFileSync(`${root}/${modules}/package.json`, '{ "type": "commonjs" }\n');
await build({
  ...shared,
  entryPoints: readdirSync(`${root}/${modules}`).filter((name) => name.endsWith('.js')).map((name) => `${modules}/${name}`),
  outdir: 'dist/server',
  bundle: false,
  format: 'cjs',
  // import() of a chunk becomes require(): every chunk goes through the bundle loader, once.
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__importMetaUrl' },
  // The directive comes first to count: ES modules are strict code, and so stays the CommonJS.
  banner: { js: '"use strict";const __importMetaUrl=require("node:url").pathToFileURL(__filename).href;' },
});
// The files are CommonJS whoever loads them (the audit worker is started by Node from its file).
writeFileSync(`${root}/dist/server/package.json`, '{ "type": "commonjs" }\n');
rmSync(`${root}/${modules}`, { recursive: true, force: true });
