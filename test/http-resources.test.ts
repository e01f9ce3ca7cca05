import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/errors.js';
import { GatewayError } from '../src/gateway/errors.js';
import type { ErrorClass } from '../src/http/error-entries.js';
import { DOMAIN_ERRORS } from '../src/http/error-mapping.js';
import { RESOURCES } from '../src/http/resources/index.js';
import { ListenError } from '../src/listen-error.js';
import { ScheduleSyntaxError } from '../src/scheduler/schedule.js';
import { HomeLockedError } from '../src/storage/shared/home-lock.js';
import { RunClosedError, SessionsFullError } from '../src/storage/ports/errors.js';
import { ExpressionError } from '../src/tools/expression.js';
import { matches, sources, SRC } from './helpers/sources.js';

const RESOURCES_DIR = join(SRC, 'http', 'resources');
const folders = readdirSync(RESOURCES_DIR, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
/** The folder under `src/http/resources/` a source file belongs to, or null for the shared files at its root. */
const folderOf = (file: string): string | null => {
  const parts = relative(RESOURCES_DIR, file).split(sep);
  return parts.length > 1 && !parts[0]!.startsWith('..') ? parts[0]! : null;
};
/** A route registered on a Fastify instance. */
const ROUTE_CALL = /\bapp\.(get|post|put|patch|delete|head|options|all|route)\(/;

describe('HTTP resources', () => {
  it('are each a plugin of a folder of its own, registered through the one list', async () => {
    expect(folders.length).toBeGreaterThan(10);
    const listed = new Set(RESOURCES.map((resource) => resource.plugin));
    expect(listed.size).toBe(RESOURCES.length);
    const registered: string[] = [];
    for (const folder of folders) {
      const module = (await import(pathToFileURL(join(RESOURCES_DIR, folder, 'index.ts')).href)) as Record<string, unknown>;
      const plugins = Object.values(module).filter((value) => listed.has(value as never));
      expect(plugins, `src/http/resources/${folder}/index.ts exports a plugin of the list`).toHaveLength(1);
      registered.push(folder);
    }
    // One folder per entry of the list: no plugin registered from elsewhere.
    expect(registered).toHaveLength(RESOURCES.length);
  });

  it('hold every route: outside their folders only the liveness probe the server itself answers', () => {
    const outside = matches(sources(SRC).filter((file) => folderOf(file) === null), ROUTE_CALL).map((line) => line.replace(/:\d+:/, ':'));
    expect(outside).toEqual(['http/server.ts: app.get(HEALTHZ_PATH, {']);
    for (const folder of folders) {
      expect(matches(sources(join(RESOURCES_DIR, folder)), ROUTE_CALL), `routes of ${folder}`).not.toEqual([]);
    }
  });

  it('do not import one another: what two resources share sits at the root of src/http/resources', () => {
    const crossing = sources(RESOURCES_DIR).flatMap((file) => {
      const own = folderOf(file);
      if (own === null) return [];
      const specifiers = [...readFileSync(file, 'utf8').matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
      return specifiers
        .filter((specifier) => {
          const target = folderOf(resolve(dirname(file), specifier));
          return target !== null && target !== own;
        })
        .map((specifier) => `${relative(SRC, file)} imports ${specifier}`);
    });
    expect(crossing).toEqual([]);
  });
});

/**
 * Error classes that never reach a route, so the error handler has no entry for them: they are
 * handled where they are raised, or stop the service before it serves.
 */
const NEVER_ANSWERED = new Map<ErrorClass, string>([
  [GatewayError, 'outbound requests: the providers and tools that make them turn it into their own failure'],
  [ExpressionError, 'the calculator tool: a tool result, not a request failure'],
  [ScheduleSyntaxError, 'turned into SchedulerError("invalid") where a job is read'],
  [RunClosedError, 'the run registry handles it when a run\'s end was already written'],
  [ConfigError, 'start-up and doctor'],
  [HomeLockedError, 'start-up'],
  [SessionsFullError, 'a session store\'s bound: the agent runtime turns it into AgentError("capacity")'],
  [ListenError, 'start-up'],
]);

describe('the error table', () => {
  it('answers every domain error class with a catalogue code, or says why it never reaches a route', async () => {
    // Server-side domain code only: the listeners' own catalogue error (`ApiError`, the envelope's
    // type) is the table's answer, not a question; the client library and the console's script have errors of their own.
    const files = sources(SRC).filter((file) => !['http', 'listener', 'client', 'console'].includes(relative(SRC, file).split(sep)[0]!));
    const classes: ErrorClass[] = [];
    for (const file of files) {
      const names = [...readFileSync(file, 'utf8').matchAll(/^export class (\w+) extends (\w+)/gm)]
        .filter(([, name, base]) => name!.endsWith('Error') || base!.endsWith('Error'))
        .map(([, name]) => name!);
      if (names.length === 0) continue;
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const name of names) {
        const value = module[name];
        if (typeof value === 'function' && value.prototype instanceof Error) classes.push(value as ErrorClass);
      }
    }
    expect(classes.length).toBeGreaterThan(10);
    const covered = (type: ErrorClass, by: Iterable<ErrorClass>) => [...by].some((base) => type === base || type.prototype instanceof base);
    const unanswered = classes.filter((type) => !covered(type, DOMAIN_ERRORS.map((entry) => entry.type)) && !covered(type, NEVER_ANSWERED.keys()));
    expect(unanswered.map((type) => type.name)).toEqual([]);
    // And nothing is both: an entry for a class listed as never answered would be dead.
    expect(DOMAIN_ERRORS.filter((entry) => covered(entry.type, NEVER_ANSWERED.keys())).map((entry) => entry.type.name)).toEqual([]);
  });

  it('merges the entries of every resource into the one table the error handler asks', () => {
    for (const resource of RESOURCES) {
      for (const entry of resource.errors) expect(DOMAIN_ERRORS).toContain(entry);
    }
    const types = DOMAIN_ERRORS.map((entry) => entry.type);
    expect(new Set(types).size).toBe(types.length);
  });
});
