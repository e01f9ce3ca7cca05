import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A fake Discord Gateway on 127.0.0.1 speaking the real wire format: RFC 6455 frames over an HTTP
 * upgrade, and the Gateway's JSON payloads (hello, identify → READY, heartbeat → ACK, resume →
 * replay + RESUMED, invalid session, reconnect). The same server answers `GET …/gateway/bot`, so
 * a test points `discord.api_base_url` at `<origin>/api/v10`.
 */

interface Payload {
  op: number;
  d?: unknown;
  s?: number | null;
  t?: string | null;
}

interface FakeSession {
  id: string;
  seq: number;
  /** Every dispatch sent in this session, by sequence: what a resume replays. */
  log: Payload[];
}

class Peer {
  private buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  session: FakeSession | null = null;
  closed = false;

  constructor(
    readonly socket: Socket,
    private readonly onText: (peer: Peer, text: string) => void,
  ) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('close', () => this.gone());
    // The HTTP server's sockets allow half-open: a peer that went away (FIN) is gone all the same.
    socket.on('end', () => {
      socket.end();
      this.gone();
    });
    socket.on('error', () => undefined);
  }

  send(payload: Payload): void {
    if (!this.closed) this.socket.write(frame(0x1, Buffer.from(JSON.stringify(payload))));
  }

  /** A clean close: a close frame with the code, then the socket ends. */
  close(code: number): void {
    if (this.closed) return;
    const body = Buffer.alloc(2);
    body.writeUInt16BE(code);
    this.socket.write(frame(0x8, body));
    this.socket.end();
    this.gone();
  }

  /** The connection breaks: no close frame. */
  drop(): void {
    this.socket.destroy();
    this.gone();
  }

  private gone(): void {
    this.closed = true;
  }

  private read(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const parsed = parseFrame(this.buffer);
      if (!parsed) return;
      this.buffer = this.buffer.subarray(parsed.size);
      if (parsed.opcode === 0x8) {
        const code = parsed.payload.length >= 2 ? parsed.payload.readUInt16BE(0) : 1005;
        this.close(code);
        return;
      }
      if (parsed.opcode === 0x9) this.socket.write(frame(0xa, parsed.payload));
      if (parsed.opcode === 0x1 || parsed.opcode === 0x0) {
        this.fragments.push(parsed.payload);
        if (parsed.fin) {
          const text = Buffer.concat(this.fragments).toString('utf8');
          this.fragments = [];
          this.onText(this, text);
        }
      }
    }
  }
}

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode;
  if (length < 126) header[1] = length;
  else if (length < 65536) {
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

function parseFrame(buffer: Buffer): { fin: boolean; opcode: number; payload: Buffer; size: number } | null {
  if (buffer.length < 2) return null;
  const fin = (buffer[0]! & 0x80) !== 0;
  const opcode = buffer[0]! & 0x0f;
  const masked = (buffer[1]! & 0x80) !== 0;
  let length = buffer[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  const maskAt = offset;
  if (masked) offset += 4;
  if (buffer.length < offset + length) return null;
  const payload = Buffer.from(buffer.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= buffer[maskAt + (i % 4)]!;
  return { fin, opcode, payload, size: offset + length };
}

export interface FakeGatewayOptions {
  token: string;
  user?: { id: string; username: string };
  guildIds?: string[];
  heartbeatIntervalMs?: number;
  /** The host READY names in `resume_gateway_url` (default 127.0.0.1; `localhost` to play an address the policy does not list). */
  resumeHost?: string;
}

export interface Identify {
  token: string;
  intents: number;
}

export class FakeDiscordGateway {
  /** Every upgrade request: its path and query, in order. */
  readonly upgrades: { url: string }[] = [];
  readonly identifies: Identify[] = [];
  readonly resumes: { session_id: string; seq: number }[] = [];
  heartbeats = 0;
  /** The most sockets open at one time. */
  mostConnected = 0;
  /** Whether heartbeats are acknowledged; a test turns it off to play a zombie connection. */
  ackHeartbeats = true;
  /** `GET /gateway/bot` requests, with the Authorization header each carried. */
  readonly gatewayBotRequests: { authorization: string | undefined }[] = [];
  private readonly sessions = new Map<string, FakeSession>();
  private readonly peers = new Set<Peer>();
  private constructor(
    private readonly server: Server,
    private readonly options: Required<FakeGatewayOptions>,
  ) {}

  static async start(options: FakeGatewayOptions): Promise<FakeDiscordGateway> {
    const server = createServer();
    const fake = new FakeDiscordGateway(server, {
      user: { id: '900000000000000001', username: 'agentd-bot' }, guildIds: ['800000000000000001'], heartbeatIntervalMs: 41_250, resumeHost: '127.0.0.1', ...options,
    });
    server.on('request', (req, res) => {
      if (req.method === 'GET' && req.url?.endsWith('/gateway/bot')) {
        fake.gatewayBotRequests.push({ authorization: req.headers.authorization });
        if (req.headers.authorization !== `Bot ${fake.options.token}`) {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"message": "401: Unauthorized", "code": 0}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
          url: fake.wsUrl, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
        }));
        return;
      }
      res.writeHead(404).end();
    });
    server.on('upgrade', (req, socket: Socket) => fake.upgrade(req, socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  get apiBaseUrl(): string {
    return `${this.origin}/api/v10`;
  }
  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }
  /** Sockets open now. */
  get connected(): number {
    return [...this.peers].filter((p) => !p.closed).length;
  }

  /** A MESSAGE_CREATE for the session of every open socket (and into its log, for a resume to replay). */
  dispatch(t: string, d: unknown): void {
    const sessions = new Set([...this.sessions.values()]);
    for (const session of sessions) this.record(session, t, d);
    for (const peer of this.live()) {
      const last = peer.session?.log.at(-1);
      if (last) peer.send(last);
    }
  }

  /** Sends op 7 (reconnect) on every open socket. */
  reconnect(): void {
    for (const peer of this.live()) peer.send({ op: 7, d: null });
  }

  /** Sends op 9; a non-resumable one forgets the session. */
  invalidSession(resumable: boolean): void {
    for (const peer of this.live()) {
      if (!resumable && peer.session) this.sessions.delete(peer.session.id);
      peer.send({ op: 9, d: resumable });
    }
  }

  /** Closes every open socket with `code` (a close frame). */
  closeWith(code: number): void {
    for (const peer of this.live()) peer.close(code);
  }

  /** Breaks every open socket without a close frame. */
  drop(): void {
    for (const peer of this.live()) peer.drop();
  }

  async close(): Promise<void> {
    for (const peer of this.peers) peer.drop();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private live(): Peer[] {
    return [...this.peers].filter((p) => !p.closed);
  }

  private record(session: FakeSession, t: string, d: unknown): Payload {
    session.seq += 1;
    const payload = { op: 0, s: session.seq, t, d };
    session.log.push(payload);
    return payload;
  }

  private upgrade(req: IncomingMessage, socket: Socket): void {
    this.upgrades.push({ url: req.url ?? '' });
    const key = req.headers['sec-websocket-key'];
    if (typeof key !== 'string') {
      socket.destroy();
      return;
    }
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    const peer = new Peer(socket, (p, text) => this.receive(p, text));
    this.peers.add(peer);
    this.mostConnected = Math.max(this.mostConnected, this.connected);
    peer.send({ op: 10, d: { heartbeat_interval: this.options.heartbeatIntervalMs } });
  }

  private receive(peer: Peer, text: string): void {
    const payload = JSON.parse(text) as Payload;
    const d = payload.d as Record<string, unknown>;
    if (payload.op === 1) {
      this.heartbeats += 1;
      if (this.ackHeartbeats) peer.send({ op: 11 });
    } else if (payload.op === 2) {
      this.identifies.push({ token: String(d.token), intents: Number(d.intents) });
      if (d.token !== this.options.token) {
        peer.close(4004);
        return;
      }
      const session: FakeSession = { id: randomUUID(), seq: 0, log: [] };
      this.sessions.set(session.id, session);
      peer.session = session;
      peer.send(this.record(session, 'READY', {
        v: 10, user: { ...this.options.user, bot: true }, session_id: session.id,
        resume_gateway_url: `ws://${this.options.resumeHost}:${this.port}/resumed`, guilds: this.options.guildIds.map((id) => ({ id, unavailable: true })),
      }));
    } else if (payload.op === 6) {
      this.resumes.push({ session_id: String(d.session_id), seq: Number(d.seq) });
      const session = this.sessions.get(String(d.session_id));
      if (!session || d.token !== this.options.token) {
        peer.send({ op: 9, d: false });
        return;
      }
      peer.session = session;
      for (const missed of session.log.filter((p) => (p.s ?? 0) > Number(d.seq))) peer.send(missed);
      peer.send(this.record(session, 'RESUMED', null));
    }
  }
}
