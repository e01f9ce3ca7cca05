import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export function buildMcpToolServer(variant?: 'v1' | 'v2'): McpServer;
