#!/usr/bin/env node
// The service runs from its bundle (dist/server, written by `npm run build`), loaded with the
// compiled code an earlier start kept beside it (docs/decisions.md#the-start-reuses-compiled-code).
// Stack traces name the TypeScript sources: a bundle file's source map is read when a stack through
// it is first formatted.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/server/', import.meta.url));
const require = createRequire(import.meta.url);
require(`${bundle}stack-traces.js`).mapStackTracesToSources(bundle);
// NODE_DISABLE_COMPILE_CACHE is Node's own switch for its compile cache; it turns this one off too.
const loader = require(`${bundle}bundle-loader.js`).bundleLoader(bundle, { keep: !process.env.NODE_DISABLE_COMPILE_CACHE });
const { main } = loader.require('cli.js');

main(process.argv).then(
  () => loader.keepCompiledCode(),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
