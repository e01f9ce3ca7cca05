import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve, sep } from 'node:path';
import { Script } from 'node:vm';

/**
 * Loads the server bundle (CommonJS files in one folder, as `npm run build` writes dist/server) and
 * keeps V8's compiled code for each file beside it, in `<file>.v8cache`, for the next start
 * (docs/decisions.md#the-start-reuses-compiled-code). A kept file is used only when it names the
 * SHA-256 of the very bytes being loaded, its code is whole (its own SHA-256: V8 checks the length
 * of what it is given, not its bytes), and V8 accepts it (same V8 version and flags); otherwise the
 * file is compiled from source as Node would, and kept anew at the next `keepCompiledCode()`.
 */
export interface BundleLoader {
  /** The exports of a file of the bundle (a path inside its folder), loading it and what it requires once. */
  require(file: string): unknown;
  /**
   * Writes the compiled code of every file that had none to use, with what has run so far compiled
   * too (call it once the work a start does is done). A folder that cannot be written is left as it
   * is: the next start compiles from source again.
   */
  keepCompiledCode(): void;
  /** The files this loader compiled from source and those it took from kept code, in load order. */
  readonly compiled: readonly string[];
  readonly reused: readonly string[];
}

/** How a CommonJS file is called; its lines are the file's own (the wrapper's line is line 0). */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAPPER_TAIL = '\n})';
const DIGEST_BYTES = 32;

interface Module {
  exports: unknown;
}

interface Unkept {
  file: string;
  digest: Buffer;
  script: Script;
}

export function bundleLoader(folder: string, options: { keep?: boolean } = {}): BundleLoader {
  const root = resolve(folder);
  const keep = options.keep ?? true;
  const modules = new Map<string, Module>();
  const unkept: Unkept[] = [];
  const compiled: string[] = [];
  const reused: string[] = [];

  const load = (file: string): unknown => {
    const known = modules.get(file);
    if (known) return known.exports;
    const bytes = readFileSync(file);
    const digest = sha256(bytes);
    const cachedData = keep ? keptCode(file, digest) : undefined;
    const script = new Script(WRAPPER_HEAD + bytes.toString('utf8') + WRAPPER_TAIL, { filename: file, lineOffset: -1, cachedData });
    if (cachedData && !script.cachedDataRejected) reused.push(file);
    else {
      compiled.push(file);
      if (keep) unkept.push({ file, digest, script });
    }
    // Registered before it runs, as Node does: a file that requires one of its requirers gets its
    // exports so far; one that throws is forgotten, so requiring it again runs it again.
    const module: Module = { exports: {} };
    modules.set(file, module);
    try {
      const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
      wrapper.call(module.exports, module.exports, requireFrom(file), module, file, dirname(file));
    } catch (error) {
      modules.delete(file);
      throw error;
    }
    return module.exports;
  };

  /** The bundle's own files load through this loader; packages and Node's modules through Node's require. */
  const requireFrom = (file: string): NodeJS.Require => {
    const nodeRequire = createRequire(file);
    const bundleRequire = ((id: string) => {
      if (!id.startsWith('./') && !id.startsWith('../')) return nodeRequire(id);
      const target = resolve(dirname(file), id);
      return target.startsWith(root + sep) && target.endsWith('.js') ? load(target) : nodeRequire(id);
    }) as NodeJS.Require;
    return Object.assign(bundleRequire, { resolve: nodeRequire.resolve, cache: nodeRequire.cache, main: nodeRequire.main, extensions: nodeRequire.extensions });
  };

  return {
    require: (file) => load(resolve(root, file)),
    keepCompiledCode() {
      for (const { file, digest, script } of unkept.splice(0)) writeKeptCode(file, digest, script.createCachedData());
    },
    compiled,
    reused,
  };
}

function keptFile(file: string): string {
  return `${file}.v8cache`;
}

const sha256 = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest();

/**
 * The kept code for these bytes: a kept file is the source's digest, the code's digest, the code.
 * Undefined when there is none, it was kept for other bytes, or its code is not the code written
 * (a disk's damage is never handed to V8).
 */
function keptCode(file: string, digest: Buffer): Buffer | undefined {
  let kept: Buffer;
  try {
    kept = readFileSync(keptFile(file));
  } catch {
    return undefined;
  }
  if (kept.length <= 2 * DIGEST_BYTES || !kept.subarray(0, DIGEST_BYTES).equals(digest)) return undefined;
  const code = kept.subarray(2 * DIGEST_BYTES);
  return sha256(code).equals(kept.subarray(DIGEST_BYTES, 2 * DIGEST_BYTES)) ? code : undefined;
}

/** Written whole or not at all (a start reading it meanwhile sees the old file or the new one). */
function writeKeptCode(file: string, digest: Buffer, code: Buffer): void {
  const temporary = `${keptFile(file)}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, Buffer.concat([digest, sha256(code), code]), { mode: 0o644 });
    renameSync(temporary, keptFile(file));
  } catch {
    // A folder the service may not write (an installation owned by another user): nothing is kept.
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing was written
    }
  }
}
