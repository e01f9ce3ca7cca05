/**
 * A tool as the model sees it: shared by the tools (which implement it) and the providers (which
 * describe it to the model), so neither folder imports the other for it.
 */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  schema: Record<string, unknown>;
}

/**
 * The name a provider sees. Providers accept only `[a-zA-Z0-9_-]{1,64}`, while MCP tools are named
 * `mcp.<server>.<tool>`: each dot travels as `__` and the registry maps the name back.
 */
export const wireToolName = (name: string): string => name.replaceAll('.', '__');
