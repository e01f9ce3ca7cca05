import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface StdioServerCommand {
  /** An absolute path (the config refuses anything else), run without a shell. */
  command: string;
  args: readonly string[];
  /** The child's whole environment. */
  env: Readonly<Record<string, string>>;
}

/** The end of the child's stderr kept for diagnostics; a chatty server cannot grow it. */
const STDERR_TAIL_CHARS = 2_000;
/** One JSON-RPC line may be this large; a server writing more without a newline is cut off. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** How long a server has to exit after SIGTERM before it is killed. */
const KILL_AFTER_MS = 2_000;

/**
 * MCP over a child process's stdin/stdout. The SDK's own stdio transport adds PATH, HOME and other
 * variables of this process to the child's environment; here the child gets exactly `env` (the
 * server's `env_allow` names), so no credential of the service reaches a tool server unasked.
 */
export class ScrubbedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_LINE_BYTES });
  private stderr = '';
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly server: StdioServerCommand) {}

  /** The last lines the server wrote to stderr (for the last-error diagnostics; censor before showing). */
  get stderrTail(): string {
    return this.stderr;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the transport is already started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, [...this.server.args], {
        env: { ...this.server.env },
        shell: false,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once('close', () => done()));
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.once('error', (error) => {
        // A command that cannot be started (missing, not executable) leaves no process to stop.
        if (!spawned) this.child = null;
        reject(error);
        this.onerror?.(error);
      });
      child.once('close', () => {
        this.child = null;
        this.onclose?.();
      });
      child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      // A write to a server that just died fails here; `close` reports the end.
      child.stdin.on('error', (error) => this.onerror?.(error));
    });
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // A line that is not a JSON-RPC message is skipped; the next one may be.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the MCP server process is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) return resolve();
      // A full pipe: wait for room, or for the end of a process that will never read it.
      const done = () => {
        stdin.off('drain', done);
        stdin.off('close', done);
        resolve();
      };
      stdin.on('drain', done);
      stdin.on('close', done);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.stdin.end();
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    killer.unref();
    await this.exited;
    clearTimeout(killer);
  }
}
