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

describe('import graph', () => {
  it('has no cycle between providers and tools: shared contracts live apart from both', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    // The offline provider uses the tools' expression parser; the reverse direction must not exist.
    expect(reaches(graph, 'providers', 'tools')).toBe(true);
    expect(reaches(graph, 'tools', 'providers')).toBe(false);
  });

  it('defines GatewayCategory once', () => {
    expect(matches(sources(SRC), /export type GatewayCategory\b/)).toEqual(['policy/network-policy.ts:9: export type GatewayCategory = \'provider\' | \'tool\' | \'discord\' | \'mcp\';']);
  });
});
