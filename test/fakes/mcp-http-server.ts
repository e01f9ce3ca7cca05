import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildMcpToolServer } from './mcp-tool-server.mjs';

export interface HttpMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** `127.0.0.1:<port>`, as network.mcp_allowed_hosts takes it. */
  host: string;
  /** Every request that reached the server (method and path). */
  requests: string[];
  /** Which tool list the next requests see. */
  variant: 'v1' | 'v2';
  close(): Promise<void>;
}

/** The fake tool server over Streamable HTTP (stateless: a server and transport per request) on 127.0.0.1. */
export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const requests: string[] = [];
  const state: { variant: 'v1' | 'v2' } = { variant: 'v1' };
  const http = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.method !== 'POST' || req.url !== '/mcp') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const server = buildMcpToolServer(state.variant);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void server.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    host: `127.0.0.1:${port}`,
    requests,
    get variant() {
      return state.variant;
    },
    set variant(value) {
      state.variant = value;
    },
    close: () => new Promise((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}
