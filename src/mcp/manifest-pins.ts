import type { SettingsStore } from '../storage/types.js';
import type { Manifest } from './manifest.js';

const keyOf = (server: string) => `mcp.manifest.${server}`;

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
    const parsed = JSON.parse(stored) as Partial<Manifest>;
    // A value that is not a manifest pins nothing anyone accepted: the next list is a change.
    if (typeof parsed?.digest !== 'string' || typeof parsed.tools !== 'object' || parsed.tools === null) {
      return { digest: 'unreadable', tools: {} };
    }
    return { digest: parsed.digest, tools: parsed.tools };
  }

  set(server: string, manifest: Manifest): Promise<void> {
    return this.settings.set(keyOf(server), JSON.stringify(manifest), new Date(this.now()).toISOString());
  }
}
