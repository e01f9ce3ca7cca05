import { canonicalJson, sha256Hex as sha256 } from '../security/canonical-json.js';

/** What a server says about one tool: what the model is told and what arguments it may pass. */
export interface ManifestTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** The pinned form of a server's tool list: one digest over all of it, and one per tool for the diff. */
export interface Manifest {
  digest: string;
  tools: Record<string, string>;
}

/** Names of the tools added, removed and changed between two manifests. */
export interface ManifestDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** The digest of names, descriptions and schemas; the order the server lists the tools in does not count. */
export function manifestOf(tools: readonly ManifestTool[]): Manifest {
  const perTool: Record<string, string> = {};
  for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    perTool[tool.name] = sha256(canonicalJson({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
  }
  return { digest: sha256(canonicalJson(perTool)), tools: perTool };
}

export function diffManifests(pinned: Manifest, seen: Manifest): ManifestDiff {
  const names = (manifest: Manifest) => Object.keys(manifest.tools);
  return {
    added: names(seen).filter((name) => !Object.hasOwn(pinned.tools, name)),
    removed: names(pinned).filter((name) => !Object.hasOwn(seen.tools, name)),
    changed: names(seen).filter((name) => Object.hasOwn(pinned.tools, name) && pinned.tools[name] !== seen.tools[name]),
  };
}

/** "1 added (x), 1 changed (y)": how the diagnostics and the audit event word a diff. */
export function summarizeDiff(diff: ManifestDiff): string {
  const parts = (['added', 'removed', 'changed'] as const)
    .filter((kind) => diff[kind].length > 0)
    .map((kind) => `${diff[kind].length} ${kind} (${diff[kind].join(', ')})`);
  return parts.length > 0 ? parts.join(', ') : 'no tool changed';
}
