import type { ToolDefinition } from '../tools/types.js';
import type { ManifestTool } from './manifest.js';

/** The registered name of a server's tool; providers see it as `mcp__<server>__<tool>`. */
export const mcpToolName = (server: string, tool: string): string => `mcp.${server}.${tool}`;

/** The server a registered tool name belongs to (`mcpToolName` read back), or null for other tools. */
export const mcpServerOf = (tool: string): string | null => /^mcp\.([^.]+)\./.exec(tool)?.[1] ?? null;

/** What a `tools/call` answered, as far as the agent uses it. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

export type McpToolCaller = (tool: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<McpCallResult>;

/**
 * A server's tool as the registry takes it. The schema is the server's `inputSchema` (without
 * `$schema`, whose dialect URL the validator need not know), so the registry checks the arguments
 * before they leave, as for a built-in tool.
 */
export function mcpToolDefinition(server: string, tool: ManifestTool, call: McpToolCaller): ToolDefinition {
  const { $schema: _dialect, ...schema } = tool.inputSchema;
  return {
    name: mcpToolName(server, tool.name),
    description: tool.description,
    schema,
    server,
    run: async (args, context) => {
      const result = await call(tool.name, args, context.signal);
      const text = resultText(result);
      // The registry turns a thrown error into an error result for the model.
      if (result.isError === true) throw new Error(text || `${tool.name} failed`);
      return text;
    },
  };
}

/** The text parts of a result, in order; other parts are named so the model knows they were there. */
function resultText(result: McpCallResult): string {
  const parts: string[] = [];
  for (const item of Array.isArray(result.content) ? result.content : []) {
    const part = item as { type?: unknown; text?: unknown };
    if (part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    else parts.push(`[${typeof part.type === 'string' ? part.type.slice(0, 32) : 'unknown'} content omitted]`);
  }
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}
