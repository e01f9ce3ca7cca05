import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matches, sources, SRC } from './helpers/sources.js';

/** Resolved relative imports of every source file (`.js` specifiers name the `.ts` sources). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const specifiers = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
    graph.set(file, specifiers.map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts')));
  }
  return graph;
}

/** Whether a module in folder `from` reaches a module in folder `to` through any chain of imports. */
function reaches(graph: Map<string, string[]>, from: string, to: string): boolean {
  const inFolder = (file: string, folder: string) => file.startsWith(join(SRC, folder) + '/');
  const seen = new Set<string>();
  const queue = [...graph.keys()].filter((file) => inFolder(file, from));
  while (queue.length > 0) {
    const file = queue.pop()!;
    for (const next of graph.get(file) ?? []) {
      if (inFolder(next, to)) return true;
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}

/** The groups of files that import each other in a circle (strongly connected components), as paths under src/. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)!.includes(file)) found.push(group.map((f) => relative(SRC, f)).sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** `file -> import` for every import of a file in folder `from` that names a file in folder `to`. */
function importsInto(graph: Map<string, string[]>, from: string, to: string): string[] {
  const inFolder = (file: string, folder: string) => file.startsWith(join(SRC, folder) + '/');
  return [...graph].flatMap(([file, imports]) =>
    inFolder(file, from) ? imports.filter((next) => inFolder(next, to)).map((next) => `${relative(SRC, file)} -> ${relative(SRC, next)}`) : [],
  );
}

describe('import graph', () => {
  it('has no import circle among the source files, type imports included', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(circles(graph)).toEqual([]);
  });

  it('finds a circle where there is one (the detector itself works)', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    const c = join(SRC, 'c.ts');
    expect(circles(new Map([[a, [b]], [b, [c]], [c, [a]]]))).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(circles(new Map([[a, [b]], [b, [c]], [c, []]]))).toEqual([]);
    expect(circles(new Map([[a, [a]]]))).toEqual([['a.ts']]);
  });

  it('keeps runs/ below the agent and the HTTP layer: the agent imports runs, never the other way', () => {
    const graph = importGraph();
    expect(importsInto(graph, 'runs', 'agent')).toEqual([]);
    expect(importsInto(graph, 'runs', 'http')).toEqual([]);
    // It does see them: the agent's runtime is built on the run registry.
    expect(importsInto(graph, 'agent', 'runs')).toContain('agent/runtime.ts -> runs/run-registry.ts');
  });

  it('has no cycle between providers and tools: shared contracts live apart from both', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    // The offline provider uses the tools' expression parser; the reverse direction must not exist.
    expect(reaches(graph, 'providers', 'tools')).toBe(true);
    expect(reaches(graph, 'tools', 'providers')).toBe(false);
  });

  it('keeps the listeners\' shared layer below http: listener/ reaches nothing of http/, channels/ imports nothing from it', () => {
    const graph = importGraph();
    expect(reaches(graph, 'listener', 'http')).toBe(false);
    // Direct imports only: storage still declares the web-session store's type in http/, and channels use storage's ports.
    expect(importsInto(graph, 'channels', 'http')).toEqual([]);
    // The check itself sees such an import.
    expect(importsInto(graph, 'http', 'listener').length).toBeGreaterThan(0);
  });

  it('defines GatewayCategory once', () => {
    expect(matches(sources(SRC), /export type GatewayCategory\b/)).toEqual(['policy/network-policy.ts:9: export type GatewayCategory = \'provider\' | \'tool\' | \'discord\' | \'mcp\';']);
  });
});
