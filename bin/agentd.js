#!/usr/bin/env node
// The service runs from its bundle (dist/server, written by `npm run build`). Stack traces name the
// TypeScript sources: a bundle file's source map is read when a stack through it is first formatted.
const bundle = new URL('../dist/server/', import.meta.url);
const { mapStackTracesToSources } = await import(new URL('stack-traces.js', bundle).href);
mapStackTracesToSources(bundle.href);
const { main } = await import(new URL('cli.js', bundle).href);

main(process.argv).catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
