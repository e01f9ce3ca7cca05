import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The stack-trace mapper as bin/agentd.js loads it (dist/server, `npm test` builds first), on a
// small bundle of its own, in a Node process of its own: the mapper replaces the stack format.
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'agentd-stacks-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Bundles a source whose `failHere` throws into `<dir>/bundle/`, with or without its linked map; returns the source's path. */
async function bundleThatThrows(sourcemap: boolean): Promise<string> {
  const source = join(dir, 'src', 'thrower.ts');
  mkdirSync(join(dir, 'src'));
  writeFileSync(source, 'export function failHere(): never {\n  const why: string = "broken";\n  throw new Error(why);\n}\n');
  await build({
    entryPoints: [source], outdir: join(dir, 'bundle'), bundle: true, format: 'cjs', platform: 'node',
    minifyWhitespace: true, sourcemap: sourcemap ? 'linked' : false, logLevel: 'silent',
  });
  return source;
}

/** The stack of the bundle's error, thrown through a function of the calling script. */
function stackThroughBundle(): string[] {
  const bundle = `${join(dir, 'bundle')}/`;
  const script = `require(${JSON.stringify(resolve('dist/server/stack-traces.js'))}).mapStackTracesToSources(${JSON.stringify(bundle)});
    const loader = require(${JSON.stringify(resolve('dist/server/bundle-loader.js'))}).bundleLoader(${JSON.stringify(bundle)});
    const { failHere } = loader.require('thrower.js');
    function callerOutsideTheBundle() { failHere(); }
    try { callerOutsideTheBundle(); } catch (error) { console.log(error.stack); }`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return run.stdout.trimEnd().split('\n');
}

describe('stack traces through the bundle', () => {
  it('name the original source, line and column of a frame in the bundle, and leave the other frames as they were', async () => {
    const source = await bundleThatThrows(true);
    const stack = stackThroughBundle();
    expect(stack[0]).toBe('Error: broken');
    expect(stack[1]).toBe(`    at failHere (${source}:3:9)`);
    expect(stack[2]).toMatch(/^ {4}at callerOutsideTheBundle \(\[eval\]:4:\d+\)$/);
  });

  it('keep the bundle location of a file without a source map', async () => {
    await bundleThatThrows(false);
    const stack = stackThroughBundle();
    expect(stack[1]).toMatch(new RegExp(`^ {4}at failHere \\(${join(dir, 'bundle')}/thrower\\.js:\\d+:\\d+\\)$`));
  });
});
