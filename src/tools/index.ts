import type { GatewayClientFactory } from '../contracts/gateway-port.js';
import { createCalculatorTool } from './calculator.js';
import { createCurrentTimeTool } from './current-time.js';
import { ToolRegistry } from './registry.js';
import type { ToolDefinition } from './types.js';
import { createWebFetchTool, type WebFetchOptions } from './web-fetch.js';

export { ToolRegistry, MAX_TOOL_OUTPUT_CHARS, type ToolListing, type ToolResult } from './registry.js';
export type { ToolContext, ToolDefinition, TurnOrigin } from './types.js';
export { createCalculatorTool } from './calculator.js';
export { createCurrentTimeTool, isValidTimeZone } from './current-time.js';
export { createWebFetchTool, type WebFetchOptions } from './web-fetch.js';
export { evaluateExpression, ExpressionError } from './expression.js';

export interface ToolRegistryOptions {
  /** The gateway's client factory; web_fetch goes through it with category `tool`. */
  gatewayClientFactory: GatewayClientFactory;
  /** Tools built elsewhere, such as memory_search (`createMemorySearchTool(store)`). */
  extraTools?: ToolDefinition[];
  webFetch?: Omit<WebFetchOptions, 'clientFactory'>;
  /** Clock for current_time (tests). */
  now?: () => Date;
}

/** The registry with the built-in tools (current_time, calculator, web_fetch) plus `extraTools`. */
export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  const registry = new ToolRegistry();
  // The service's own tools: their argument schemas are compiled when first called.
  registry.register(createCurrentTimeTool({ now: options.now }), 'at-first-call');
  registry.register(createCalculatorTool(), 'at-first-call');
  registry.register(createWebFetchTool({ ...options.webFetch, clientFactory: options.gatewayClientFactory }), 'at-first-call');
  for (const tool of options.extraTools ?? []) registry.register(tool, 'at-first-call');
  return registry;
}
