import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

/** `file -> imported file` for each import from a module in folder `from` of a module in folder `to`. */
function importsFrom(graph: Map<string, string[]>, from: string, to: string): string[] {
  const inFolder = (file: string, folder: string) => file.startsWith(join(SRC, folder) + '/');
  return [...graph].filter(([file]) => inFolder(file, from))
    .flatMap(([file, imports]) => imports.filter((next) => inFolder(next, to)).map((next) => `${file.slice(SRC.length + 1)} -> ${next.slice(SRC.length + 1)}`));
}

describe('import graph', () => {
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
    expect(importsFrom(graph, 'channels', 'http')).toEqual([]);
    // The check itself sees such an import.
    expect(importsFrom(graph, 'http', 'listener').length).toBeGreaterThan(0);
  });

  it('defines GatewayCategory once', () => {
    expect(matches(sources(SRC), /export type GatewayCategory\b/)).toEqual(['policy/network-policy.ts:9: export type GatewayCategory = \'provider\' | \'tool\' | \'discord\' | \'mcp\';']);
  });
});
