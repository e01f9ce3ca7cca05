import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A relay on 127.0.0.1 to a test server, which the test can cut and bring back. */
export interface TcpRelay {
  /** The relay's port (the same after `start()`). */
  port(): number;
  /** Drops every connection and refuses new ones: the server "goes down" for whoever connects through it. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

export async function tcpRelay(host: string, port: number): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let own = 0;
  const start = async () => {
    server = createServer((client) => {
      const upstream = connect(port, host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(own, '127.0.0.1', resolve));
    own = (server.address() as AddressInfo).port;
  };
  await start();
  return {
    port: () => own,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    start,
  };
}
