import { AgentError } from '../../../contracts/agent-errors.js';
import type { Logger } from '../../../log.js';
import type { ConnectionStatus, DiscordConnection } from './connection.js';

/**
 * Exactly one replica holds the bot's Gateway connection (docs/discord.md#one-connection): Discord
 * sends each event to every connection of a bot, so two would answer every message twice. The
 * connection is held through a claim on the reserved session `discord:gateway` in the shared claim
 * store, the same claims that keep one run per session: taken atomically, renewed by the holder's
 * heartbeat, and taken over once it expired (20 s after its holder's last renewal), so another
 * replica connects within 30 s of the holder's death.
 */

/** The session whose claim is the connection's; not a channel's or a user's id (those are digits). */
export const CONNECTION_SESSION = 'discord:gateway';
/** How often a replica without the connection tries to take it, and the holder checks it still has it. */
export const LEASE_CHECK_MS = 5_000;

/** The runtime's session claims, as far as the connection uses them. */
export interface ConnectionClaims {
  /** Takes the claim; throws when another holder's unexpired claim has it. */
  acquire(sessionId: string, kind: 'chat', holderId: string): Promise<void>;
  holder(sessionId: string): Promise<{ holder_id: string } | null>;
  release(sessionId: string, holderId: string): Promise<void>;
}

export interface LeasedConnectionOptions {
  claims: ConnectionClaims;
  connection: Pick<DiscordConnection, 'start' | 'stop' | 'status'>;
  /** Unique to this process: which claim is this one's. */
  holderId: string;
  log: Logger;
  checkEveryMs?: number;
}

export class LeasedConnection {
  private holding = false;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: LeasedConnectionOptions) {}

  /** Whether this replica holds the connection (it may still be connecting). */
  get holds(): boolean {
    return this.holding;
  }

  /** The connection's status; `standby` while another replica holds it. */
  status(): ConnectionStatus {
    const status = this.options.connection.status();
    return this.holding || status.state === 'failed' ? status : { ...status, state: 'standby' };
  }

  /** Tries to take the connection now, then every few seconds. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Closes the connection if held, and frees the claim so another replica takes it at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.checking;
    if (!this.holding) return;
    this.holding = false;
    await this.options.connection.stop();
    await this.options.claims.release(CONNECTION_SESSION, this.options.holderId);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.checking = this.check().finally(() => {
        if (!this.stopped) this.schedule(this.options.checkEveryMs ?? LEASE_CHECK_MS);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    const { claims, holderId, log, connection } = this.options;
    try {
      if (this.holding) {
        const holder = await claims.holder(CONNECTION_SESSION);
        if (holder?.holder_id === holderId) return;
        // The claim lapsed (renewals failed) and another replica may hold it now: give way.
        this.holding = false;
        log.warn('discord: this replica lost the claim on the Gateway connection; closing it');
        await connection.stop('standby');
        return;
      }
      await claims.acquire(CONNECTION_SESSION, 'chat', holderId);
    } catch (error) {
      if (!(error instanceof AgentError && error.code === 'session_busy')) {
        log.warn(`discord: could not check the claim on the Gateway connection: ${(error as Error)?.message ?? String(error)}`);
      }
      return;
    }
    this.holding = true;
    log.info('discord: this replica holds the Gateway connection');
    connection.start();
  }
}
