import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { NetworkConfig } from '../src/config/schema.js';
import { NetworkPolicy } from '../src/policy/network-policy.js';

/** Shared plumbing for the gateway tests: loopback servers that count, and a real audit log. */

export interface Sink {
  port: number;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A TCP server on 127.0.0.1 that counts connections and answers any request with 200 "sink". */
export async function startSink(): Promise<Sink> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nsink');
      socket.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface HttpServer {
  port: number;
  url: string;
  connections(): number;
  close(): Promise<void>;
}

export async function startHttp(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<HttpServer> {
  let connections = 0;
  const server = createHttpServer(handler);
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A policy that allows exactly the given loopback ports (an IP-literal entry is explicit permission). */
export function loopbackPolicy(ports: number[], extra: Partial<NetworkConfig> = {}): NetworkPolicy {
  return NetworkPolicy.fromConfig({ ...extra, allowed_hosts: [...ports.map((p) => `127.0.0.1:${p}`), ...(extra.allowed_hosts ?? [])] });
}

export { tempAudit, type TempAudit } from './helpers/audit.js';
