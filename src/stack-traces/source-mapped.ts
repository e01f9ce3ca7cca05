import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Makes stack traces through the bundled service (every file in `bundleFolder`, the path of the
 * folder its CommonJS files are loaded from) name the TypeScript sources. A file's source map is
 * read the first time a stack through that file is formatted, not while the bundle loads as
 * `process.setSourceMapsEnabled` does: the service starts without parsing a megabyte of mappings
 * it usually never needs (docs/decisions.md#start-up-defers-what-a-request-may-need).
 */
export function mapStackTracesToSources(bundleFolder: string): void {
  const inBundle = resolve(bundleFolder) + sep;
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (file: string): SourceMap | null => {
    if (!maps.has(file)) maps.set(file, readSourceMap(file));
    return maps.get(file)!;
  };
  const frameText = (frame: NodeJS.CallSite): string => {
    const text = frame.toString();
    const file = frame.getFileName();
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (!file?.startsWith(inBundle) || line === null || column === null) return text;
    const origin = mapOf(file)?.findOrigin(line, column);
    if (!origin || !('fileName' in origin)) return text;
    const source = fileURLToPath(new URL(origin.fileName, pathToFileURL(file)));
    return text.replace(`${file}:${line}:${column}`, () => `${source}:${origin.lineNumber}:${origin.columnNumber}`);
  };
  // The format is Node's own (`Error: message` then one `    at …` line per frame); only the
  // locations inside the bundle change.
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => {
    const header = errorHeader(error);
    return frames.length === 0 ? header : `${header}\n    at ${frames.map(frameText).join('\n    at ')}`;
  };
}

function errorHeader(error: unknown): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return String(error);
  }
}

/** The file's linked source map (`<file>.map`, as the build writes it), or null when it has none. */
function readSourceMap(file: string): SourceMap | null {
  try {
    return new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
  } catch {
    return null;
  }
}
