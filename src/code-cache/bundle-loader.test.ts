import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleLoader } from './bundle-loader.js';

let dir: string;
let bundle: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentd-loader-'));
  bundle = join(dir, 'bundle');
  mkdirSync(bundle);
  write('main.js', `"use strict";
const shared = require('./shared.js');
const path = require('node:path');
exports.answer = () => shared.value * 2;
exports.sharedModule = shared;
exports.joined = path.join('a', 'b');
exports.fromOutside = require('../outside.js').outside;
exports.strict = (function () { return this; })() === undefined;`);
  write('shared.js', `exports.value = 21;\nexports.seenByCycle = require('./cycle.js').sawShared;`);
  write('cycle.js', `exports.sawShared = Object.keys(require('./shared.js'));`);
  write('thrower.js', `exports.fail = function fail() {\n  const why = 'broken';\n  throw new Error(why);\n};`);
  writeFileSync(join(dir, 'outside.js'), 'exports.outside = "node";');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, source: string): void {
  writeFileSync(join(bundle, name), source);
}

const file = (name: string) => join(bundle, name);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();

describe('the bundle loader', () => {
  it('loads each file of the bundle once, with Node’s require for packages, Node’s modules and files outside the bundle', () => {
    const loader = bundleLoader(bundle, { keep: false });
    const main = loader.require('main.js') as Record<string, unknown> & { answer(): number };
    expect(main.answer()).toBe(42);
    expect(main.joined).toBe(join('a', 'b'));
    expect(main.fromOutside).toBe('node');
    expect(main.strict).toBe(true);
    // Required again, from the loader or from another file: the same module, not a second copy.
    expect(loader.require('shared.js')).toBe(main.sharedModule);
    // A cycle sees the exports made so far, as with Node's require.
    expect((main.sharedModule as { seenByCycle: string[] }).seenByCycle).toEqual(['value']);
    expect(loader.compiled).toEqual([file('main.js'), file('shared.js'), file('cycle.js')]);
  });

  it('keeps each file’s compiled code under the digest of its bytes, and a second start reuses it', () => {
    const first = bundleLoader(bundle);
    first.require('main.js');
    expect(readdirSync(bundle).filter((name) => name.endsWith('.v8cache'))).toEqual([]);
    first.keepCompiledCode();
    const kept = readFileSync(file('main.js.v8cache'));
    expect(kept.subarray(0, 32).equals(sha256(readFileSync(file('main.js'))))).toBe(true);
    expect(kept.subarray(32, 64).equals(sha256(kept.subarray(64)))).toBe(true);
    expect(kept.length).toBeGreaterThan(64);

    const second = bundleLoader(bundle);
    expect((second.require('main.js') as { answer(): number }).answer()).toBe(42);
    expect(second.reused).toEqual([file('main.js'), file('shared.js'), file('cycle.js')]);
    expect(second.compiled).toEqual([]);
    // Nothing left to keep: the kept files stay as they were.
    second.keepCompiledCode();
    expect(readFileSync(file('main.js.v8cache')).equals(kept)).toBe(true);
  });

  it('compiles a file changed since its code was kept, even to the same length, and keeps the new code', () => {
    const first = bundleLoader(bundle);
    first.require('shared.js');
    first.keepCompiledCode();
    write('shared.js', `exports.value = 12;\nexports.seenByCycle = require('./cycle.js').sawShared;`);

    const second = bundleLoader(bundle);
    expect((second.require('shared.js') as { value: number }).value).toBe(12);
    expect(second.compiled).toContain(file('shared.js'));
    second.keepCompiledCode();
    const third = bundleLoader(bundle);
    expect((third.require('shared.js') as { value: number }).value).toBe(12);
    expect(third.reused).toContain(file('shared.js'));
  });

  it('compiles from source when V8 refuses the kept code, and keeps it anew', () => {
    const garbage = Buffer.from('not V8 code at all, but long enough to be read');
    writeFileSync(file('cycle.js.v8cache'), Buffer.concat([sha256(readFileSync(file('cycle.js'))), sha256(garbage), garbage]));
    const loader = bundleLoader(bundle);
    expect(loader.require('cycle.js')).toEqual({ sawShared: ['value', 'seenByCycle'] });
    expect(loader.compiled).toContain(file('cycle.js'));
    loader.keepCompiledCode();
    const again = bundleLoader(bundle);
    again.require('cycle.js');
    expect(again.reused).toContain(file('cycle.js'));
  });

  it('never hands V8 kept code whose bytes changed on disk', () => {
    const first = bundleLoader(bundle);
    first.require('shared.js');
    first.keepCompiledCode();
    const kept = readFileSync(file('shared.js.v8cache'));
    // One byte of the code flipped, the length (all V8 checks of it) unchanged.
    kept[kept.length - 40]! ^= 0xff;
    writeFileSync(file('shared.js.v8cache'), kept);
    const second = bundleLoader(bundle);
    expect((second.require('shared.js') as { value: number }).value).toBe(21);
    expect(second.compiled).toContain(file('shared.js'));
    expect(second.reused).not.toContain(file('shared.js'));
  });

  it('neither reads nor writes kept code when keeping is off', () => {
    const first = bundleLoader(bundle);
    first.require('main.js');
    first.keepCompiledCode();
    const off = bundleLoader(bundle, { keep: false });
    off.require('main.js');
    expect(off.reused).toEqual([]);
    rmSync(file('main.js.v8cache'));
    off.keepCompiledCode();
    expect(existsSync(file('main.js.v8cache'))).toBe(false);
  });

  it('goes on when the code cannot be kept, and leaves no partial file behind', () => {
    // A directory where the kept file would go: the write is refused (as in a folder the service may not write).
    mkdirSync(file('main.js.v8cache'));
    const loader = bundleLoader(bundle);
    loader.require('main.js');
    expect(() => loader.keepCompiledCode()).not.toThrow();
    expect(readdirSync(bundle).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(file('shared.js.v8cache'))).toBe(true);
  });

  it('runs a file whose first run threw again when it is required again, as Node does', () => {
    writeFileSync(join(dir, 'attempts.json'), '0');
    write('flaky.js', `const fs = require('node:fs');
const path = ${JSON.stringify(join(dir, 'attempts.json'))};
const attempt = Number(fs.readFileSync(path, 'utf8')) + 1;
fs.writeFileSync(path, String(attempt));
if (attempt === 1) throw new Error('first run fails');
exports.attempt = attempt;`);
    const loader = bundleLoader(bundle, { keep: false });
    expect(() => loader.require('flaky.js')).toThrow('first run fails');
    expect(loader.require('flaky.js')).toEqual({ attempt: 2 });
    expect(loader.require('flaky.js')).toEqual({ attempt: 2 });
  });

  it('reports the file’s own lines in a stack trace, from kept code too', () => {
    const lineOfThrow = () => {
      const loader = bundleLoader(bundle);
      const { fail } = loader.require('thrower.js') as { fail(): never };
      try {
        fail();
      } catch (error) {
        loader.keepCompiledCode();
        return /thrower\.js:(\d+):\d+/.exec((error as Error).stack!)?.[1];
      }
    };
    expect(lineOfThrow()).toBe('3');
    expect(lineOfThrow()).toBe('3');
  });
});
