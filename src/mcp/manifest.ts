import { canonicalJson, sha256Hex as sha256 } from '../security/ids/canonical-json.js';
import { wireToolName } from '../contracts/tool-spec.js';

/** What a server says about one tool: what the model is told and what arguments it may pass. */
export interface ManifestTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/**
 * What the pin keeps of one accepted tool, for showing the operator what it was. Display only:
 * judging a list uses the digests. Clipped to the bounds below (`clipped` says so); null when
 * the pin predates the record or the total bound left no room for it.
 */
export interface RecordedTool {
  description: string;
  /** The input schema as indented canonical JSON. */
  schema: string;
  clipped: boolean;
}

/**
 * The pinned form of a server's tool list: one digest over all of it, one per tool for the diff,
 * and what each tool said. Keyed by `Map`, never by a plain object: a server picks the names, and
 * `__proto__` or `constructor` must be tools like any other, not holes in the pin.
 */
export interface Manifest {
  digest: string;
  tools: ReadonlyMap<string, string>;
  /** Null for a pin stored before tools were recorded. */
  recorded: ReadonlyMap<string, RecordedTool | null> | null;
}

/** Names of the tools added, removed and changed between two manifests. */
export interface ManifestDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * The MCP specification's tool-name rule (SDK `toolNameValidation`): 1-128 ASCII letters,
 * digits, `_`, `-` and `.`. Anything else (spaces, Unicode look-alikes, empty) refuses the list.
 */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Bounds of what a pin records per tool and in all (characters); the digests cover everything. */
export const RECORD_DESCRIPTION_CHARS = 4_000;
export const RECORD_SCHEMA_CHARS = 8_000;
export const RECORD_TOTAL_CHARS = 200_000;

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Why a server's tool list cannot be judged at all, or null. A list with two tools of one name
 * has no single meaning (the digest and the registry could each take a different one); a name
 * outside the grammar may not survive the provider mapping; and two names that reach providers
 * as one (`a.b` and `a__b` both travel as `a__b`) make a model's call ambiguous.
 */
export function refusalOf(tools: readonly { name: string }[]): string | null {
  const names = new Set<string>();
  const wire = new Map<string, string>();
  for (const tool of tools) {
    if (typeof tool.name !== 'string' || !MCP_TOOL_NAME.test(tool.name)) {
      return `the server lists a tool named ${JSON.stringify(String(tool.name).slice(0, 140))}, outside the MCP tool-name rule (1-128 of A-Z a-z 0-9 _ - .)`;
    }
    if (names.has(tool.name)) return `the server lists two tools named ${JSON.stringify(tool.name)}`;
    names.add(tool.name);
    const as = wireToolName(tool.name);
    const clash = wire.get(as);
    if (clash !== undefined) return `the server lists tools ${JSON.stringify(clash)} and ${JSON.stringify(tool.name)}, which providers would both see as ${JSON.stringify(as)}`;
    wire.set(as, tool.name);
  }
  return null;
}

/** The digest of one tool: its name, description and schema. */
const toolDigest = (tool: ManifestTool): string => sha256(canonicalJson({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));

/**
 * The digest over the per-tool digests, in name order. The same text as `canonicalJson` of an
 * object keyed by name (what pins stored before the `Map` hold), so ordinary tool lists keep their
 * digest across the upgrade; only a list with a name a plain object swallowed digests differently.
 */
export function digestOf(perTool: ReadonlyMap<string, string>): string {
  const entries = [...perTool.keys()].sort(byName).map((name) => `${JSON.stringify(name)}:${JSON.stringify(perTool.get(name))}`);
  return sha256(`{${entries.join(',')}}`);
}

/**
 * The manifest of a tool list; the order the server lists the tools in does not count. Callers
 * refuse lists with duplicate names first (`refusalOf`); here a duplicate would throw.
 */
export function manifestOf(tools: readonly ManifestTool[]): Manifest {
  const perTool = new Map<string, string>();
  const recorded = new Map<string, RecordedTool | null>();
  let room = RECORD_TOTAL_CHARS;
  for (const tool of [...tools].sort((a, b) => byName(a.name, b.name))) {
    if (perTool.has(tool.name)) throw new Error(`two tools named ${JSON.stringify(tool.name)}`);
    perTool.set(tool.name, toolDigest(tool));
    const record = recordOf(tool);
    const size = record.description.length + record.schema.length;
    recorded.set(tool.name, size <= room ? record : null);
    if (size <= room) room -= size;
  }
  return { digest: digestOf(perTool), tools: perTool, recorded };
}

function recordOf(tool: ManifestTool): RecordedTool {
  const schema = schemaText(tool.inputSchema);
  const clipped = tool.description.length > RECORD_DESCRIPTION_CHARS || schema.length > RECORD_SCHEMA_CHARS;
  return { description: clip(tool.description, RECORD_DESCRIPTION_CHARS), schema: clip(schema, RECORD_SCHEMA_CHARS), clipped };
}

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…[clipped]` : text);

/** A schema as indented JSON with sorted keys, so a diff shows the lines that changed. */
export function schemaText(schema: unknown): string {
  return JSON.stringify(JSON.parse(canonicalJson(schema)), null, 2);
}

export function diffManifests(pinned: Manifest, seen: Manifest): ManifestDiff {
  const names = (manifest: Manifest) => [...manifest.tools.keys()];
  return {
    added: names(seen).filter((name) => !pinned.tools.has(name)),
    removed: names(pinned).filter((name) => !seen.tools.has(name)).sort(byName),
    changed: names(seen).filter((name) => pinned.tools.has(name) && pinned.tools.get(name) !== seen.tools.get(name)),
  };
}

/** "1 added (x), 1 changed (y)": how the diagnostics and the audit event word a diff. */
export function summarizeDiff(diff: ManifestDiff): string {
  const parts = (['added', 'removed', 'changed'] as const)
    .filter((kind) => diff[kind].length > 0)
    .map((kind) => `${diff[kind].length} ${kind} (${diff[kind].join(', ')})`);
  return parts.length > 0 ? parts.join(', ') : 'no tool changed';
}
