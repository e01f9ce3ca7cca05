import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of one server that can hang: connections stay open (new ones are still
 * accepted) but nothing passes either way — a server stopped mid-flight, a network that black-holes
 * packets — for one client only, while others reach the server directly.
 */
export class HangingProxy {
  private hung = false;

  private constructor(private readonly server: Server, private readonly sockets: Set<Socket>, readonly port: number) {}

  static async start(targetPort: number): Promise<HangingProxy> {
    const sockets = new Set<Socket>();
    let proxy: HangingProxy | null = null;
    const server = createServer((client) => {
      const upstream = connect(targetPort, '127.0.0.1');
      for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
        sockets.add(from);
        from.on('data', (chunk) => {
          if (!proxy?.hung) to.write(chunk);
        });
        from.on('error', () => to.destroy());
        from.on('close', () => {
          sockets.delete(from);
          to.destroy();
        });
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new HangingProxy(server, sockets, (server.address() as AddressInfo).port);
    return proxy;
  }

  /** From now on nothing passes; connections stay open. */
  hang(): void {
    this.hung = true;
  }

  /**
   * Passes again. Connections that hung are cut: what they dropped leaves their byte streams out of
   * step, so the client must reconnect, as it would after a real outage.
   */
  resume(): void {
    this.hung = false;
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
