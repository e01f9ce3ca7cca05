// A real MCP server (the SDK's low-level server side) over stdio whose tool list is whatever the
// JSON file named by argv[2] holds: duplicate names, `__proto__` and malformed names included,
// which the SDK's high-level McpServer would not register. When the file changes it tells the
// client that the tool list changed, as a server rewording its tools mid-connection does.
// `node mcp-scripted-server.mjs <tools.json>`; a call answers with the tool's name and arguments.
import { readFileSync, watchFile } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const file = process.argv[2];
const server = new Server({ name: 'scripted-tools', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: JSON.parse(readFileSync(file, 'utf8')) }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: 'text', text: `called ${request.params.name} with ${JSON.stringify(request.params.arguments ?? {})}` }],
}));
await server.connect(new StdioServerTransport());
watchFile(file, { interval: 20 }, () => void server.sendToolListChanged().catch(() => undefined));
