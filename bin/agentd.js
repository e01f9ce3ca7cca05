#!/usr/bin/env node
// The service runs from its bundle (dist/server, written by `npm run build`); its source map makes
// stack traces name the TypeScript sources.
process.setSourceMapsEnabled(true);
const { main } = await import('../dist/server/cli.js');

main(process.argv).catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
