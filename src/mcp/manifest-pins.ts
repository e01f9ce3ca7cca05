import type { SettingsStore } from '../storage/ports/settings.js';
import type { Manifest, RecordedTool } from './manifest.js';

const keyOf = (server: string) => `mcp.manifest.${server}`;

/**
 * The stored form: `digest` and `tools` (name → tool digest) as pins have always been stored, so
 * a pin written before keeps judging the next list; `recorded` (what each tool said, bounded, for
 * the operator's diff) is new and absent from those older pins.
 */
interface StoredPin {
  digest?: unknown;
  tools?: unknown;
  recorded?: unknown;
}

interface StoredRecord {
  name: string;
  description: string;
  schema: string;
  clipped: boolean;
}

/** A pin that cannot be read pins nothing anyone accepted: the next list is a change. */
const UNREADABLE: Manifest = { digest: 'unreadable', tools: new Map(), recorded: null };

/**
 * The accepted manifest of each MCP server, in the settings store: on PostgreSQL every replica
 * judges a server's tool list against the same pin, and a restart does not forget it.
 */
export class ManifestPins {
  constructor(
    private readonly settings: SettingsStore,
    private readonly now: () => number,
  ) {}

  async get(server: string): Promise<Manifest | null> {
    const stored = await this.settings.get(keyOf(server));
    if (stored === null) return null;
    let parsed: StoredPin;
    try {
      parsed = JSON.parse(stored) as StoredPin;
    } catch {
      return UNREADABLE;
    }
    if (typeof parsed?.digest !== 'string' || typeof parsed.tools !== 'object' || parsed.tools === null || Array.isArray(parsed.tools)) return UNREADABLE;
    // JSON.parse makes every key an own property, `__proto__` included; the Map keeps them all.
    const tools = new Map<string, string>();
    for (const [name, digest] of Object.entries(parsed.tools)) {
      if (typeof digest !== 'string') return UNREADABLE;
      tools.set(name, digest);
    }
    return { digest: parsed.digest, tools, recorded: recordedOf(parsed.recorded, tools) };
  }

  set(server: string, manifest: Manifest): Promise<void> {
    const recorded: StoredRecord[] = [];
    for (const [name, record] of manifest.recorded ?? []) if (record) recorded.push({ name, ...record });
    // `Object.fromEntries` defines each name as an own property (no `__proto__` setter runs), so
    // JSON.stringify writes every tool.
    const value = { digest: manifest.digest, tools: Object.fromEntries(manifest.tools), recorded };
    return this.settings.set(keyOf(server), JSON.stringify(value), new Date(this.now()).toISOString());
  }
}

/** The recorded tools of a pin; null when the pin has none (stored before tools were recorded). */
function recordedOf(value: unknown, tools: ReadonlyMap<string, string>): Map<string, RecordedTool | null> | null {
  if (!Array.isArray(value)) return null;
  const recorded = new Map<string, RecordedTool | null>();
  for (const item of value as Partial<StoredRecord>[]) {
    if (typeof item?.name !== 'string' || !tools.has(item.name) || typeof item.description !== 'string' || typeof item.schema !== 'string') continue;
    recorded.set(item.name, { description: item.description, schema: item.schema, clipped: item.clipped === true });
  }
  return recorded;
}
