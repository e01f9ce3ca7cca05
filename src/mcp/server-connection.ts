import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AuditSink } from '../storage/ports/audit.js';
import type { McpServerConfig } from '../config/schema.js';
import { findGatewayError } from '../contracts/gateway-port.js';
import { censor } from '../security/secrets/secrets.js';
import type { ToolRegistry } from '../tools/registry.js';
import { VERSION } from '../version.js';
import { diffManifests, manifestOf, refusalOf, summarizeDiff, type Manifest, type ManifestTool } from './manifest.js';
import { reviewOf, type ManifestReview } from './manifest-review.js';
import type { ManifestPins } from './manifest-pins.js';
import { mcpToolDefinition, mcpToolName, type McpCallResult } from './mcp-tools.js';

export type McpServerState = 'connecting' | 'connected' | 'manifest_changed' | 'manifest_refused' | 'disconnected' | 'stopped';

/** What diagnostics and the accept control show of one server. */
export interface McpServerStatus {
  name: string;
  transport: 'http' | 'stdio';
  state: McpServerState;
  connected: boolean;
  /** Tools of this server the agent may call now (0 while its manifest awaits acceptance). */
  tool_count: number;
  last_error: string | null;
  /** The accepted manifest's digest; null before the first list, or with `pin: false`. */
  pinned_digest: string | null;
  /** How the tool list seen differs from the pinned one, while it awaits acceptance. */
  manifest_change: string | null;
  /** That change in full, tool by tool (old and new description and schema), with its digest. */
  manifest_review: ManifestReview | null;
  /** Why the tool list seen was refused whole (a duplicate or malformed name), while it is. */
  manifest_refusal: string | null;
}

/** What accepting a pending change did; `stale` when the change pending is not the one reviewed. */
export type AcceptOutcome = { previous: string; current: string } | 'stale' | null;

/** A fresh transport per attempt; `stderrTail` says what a dying child wrote last. */
export interface OpenedTransport {
  transport: Transport;
  stderrTail?(): string;
}

export interface ServerConnectionOptions {
  config: McpServerConfig;
  open(): OpenedTransport;
  pins: ManifestPins;
  tools: ToolRegistry;
  audit: AuditSink;
  now: () => number;
  backoff: BackoffLimits;
}

export interface BackoffLimits {
  initialMs: number;
  maxMs: number;
}

/** A server has to list at most this many tools (over at most this many pages) to be used. */
const MAX_TOOLS = 256;
const MAX_PAGES = 16;
/** Names judged for duplicates and form, allowed or not; a server listing more is not used. */
const MAX_LISTED = 4_096;
/** Each tool call waits at most this long for the server (the run's cancel signal ends it earlier). */
const CALL_TIMEOUT_MS = 120_000;
const MAX_ERROR_CHARS = 500;

/**
 * One MCP server: connects, lists its tools, judges the list against the pinned manifest and
 * registers the tools when it matches. When the connection ends (a stdio child exits, a request
 * fails at start) it retries with exponential back-off until the service stops.
 */
export class ServerConnection {
  private state: McpServerState = 'connecting';
  private client: Client | null = null;
  private opened: OpenedTransport | null = null;
  private registered: string[] = [];
  private lastError: string | null = null;
  private pinnedDigest: string | null = null;
  /** The tool list seen and not yet accepted. */
  private pending: { manifest: Manifest; tools: ManifestTool[]; summary: string; review: ManifestReview } | null = null;
  /** Why the tool list seen was refused, while it is. */
  private refusal: string | null = null;
  /** Connections lost in a row without one that lasted; the back-off doubles with each. */
  private failures = 0;
  private connectedAt: number | null = null;
  private retry: NodeJS.Timeout | null = null;
  private recheck: NodeJS.Timeout | null = null;
  private stopping = false;
  /** Refreshes are serialised: a list_changed arriving mid-refresh is judged after it. */
  private refreshing: Promise<void> = Promise.resolve();

  constructor(private readonly options: ServerConnectionOptions) {}

  get name(): string {
    return this.options.config.name;
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      transport: this.options.config.url === null ? 'stdio' : 'http',
      state: this.state,
      connected: this.state === 'connected' || this.state === 'manifest_changed' || this.state === 'manifest_refused',
      tool_count: this.registered.length,
      last_error: this.lastError,
      pinned_digest: this.pinnedDigest,
      manifest_change: this.pending?.summary ?? null,
      manifest_review: this.pending?.review ?? null,
      manifest_refusal: this.refusal,
    };
  }

  /** Starts connecting in the background; failures are recorded and retried. */
  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.stopping) return;
    this.state = 'connecting';
    const opened = this.options.open();
    const client = new Client({ name: 'agentd', version: VERSION });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refresh());
    client.onclose = () => this.lost(client);
    this.opened = opened;
    this.client = client;
    try {
      await client.connect(opened.transport);
      await this.refresh();
      this.connectedAt = this.options.now();
    } catch (error) {
      this.fail(error);
      // Ends the child or the HTTP session; `onclose` then schedules the next attempt.
      await client.close().catch(() => undefined);
      if (this.client === client) this.lost(client);
    }
  }

  private lost(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.withdraw();
    // A pending change is judged again on the next connection, against the list seen then.
    this.pending = null;
    this.refusal = null;
    if (this.recheck) clearTimeout(this.recheck);
    if (this.stopping) return;
    const tail = this.opened?.stderrTail?.().trim().split('\n').at(-1);
    if (this.state !== 'disconnected' && tail) this.lastError = clip(`server ended: ${tail}`);
    else this.lastError ??= 'server ended';
    this.state = 'disconnected';
    // A server that dies soon after each start keeps backing off; one that ran a while starts afresh.
    if (this.connectedAt !== null && this.options.now() - this.connectedAt >= this.options.backoff.maxMs) this.failures = 0;
    this.connectedAt = null;
    const delay = Math.min(this.options.backoff.maxMs, this.options.backoff.initialMs * 2 ** Math.min(this.failures, 20));
    this.failures++;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, delay);
    this.retry.unref();
  }

  private fail(error: unknown): void {
    const denial = findGatewayError(error);
    const message = denial?.kind === 'policy' ? `blocked by network policy: ${denial.reason}` : (error as Error)?.message ?? String(error);
    this.lastError = clip(message);
    this.state = 'disconnected';
  }

  /** Lists the tools and applies the pin; serialised with other refreshes. */
  private refresh(): Promise<void> {
    const next = this.refreshing.then(() => this.judge());
    this.refreshing = next.catch(() => undefined);
    return next;
  }

  private async judge(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const { listed, tools } = await this.listTools(client);
    const { config, pins } = this.options;
    // A list that cannot mean one thing is refused whole, before any pin is read or written.
    const refused = refusalOf(listed);
    if (refused !== null) {
      this.withdraw();
      this.pending = null;
      this.refusal = refused;
      this.lastError = clip(`tool list refused: ${refused}`);
      this.state = 'manifest_refused';
      if (this.recheck) clearTimeout(this.recheck);
      await this.record('mcp.manifest_refused', 'deny', 'warning', { reason: refused, pinned_digest: this.pinnedDigest });
      return;
    }
    this.refusal = null;
    const manifest = manifestOf(tools);
    const pinned = config.pin ? await pins.get(this.name) : null;
    if (!config.pin || pinned?.digest === manifest.digest) {
      // A pin stored before tools were recorded gets their texts now: the same digest says they
      // are what was accepted, and the next change can then show them as the old side.
      if (pinned !== null && pinned.recorded === null) await pins.set(this.name, manifest);
      this.accepted(manifest, tools);
      return;
    }
    if (pinned === null) {
      await pins.set(this.name, manifest);
      await this.record('mcp.manifest_pinned', 'allow', 'info', { digest: manifest.digest, tools: [...manifest.tools.keys()] });
      this.accepted(manifest, tools);
      return;
    }
    // The server now describes its tools differently from what the operator accepted: none of
    // them is offered until the operator has looked at the change (`mcp.accept_manifest`).
    const diff = diffManifests(pinned, manifest);
    const summary = summarizeDiff(diff);
    this.withdraw();
    this.pinnedDigest = pinned.digest;
    this.pending = { manifest, tools, summary, review: reviewOf(pinned, manifest, diff) };
    this.state = 'manifest_changed';
    this.scheduleRecheck();
    await this.record('mcp.manifest_changed', 'deny', 'warning', { pinned_digest: pinned.digest, seen_digest: manifest.digest, ...diff, summary });
  }

  /**
   * Another replica may accept the change (the pin is shared on PostgreSQL): while a change is
   * pending, the stored pin is read again at the back-off ceiling, and a pin that now matches the
   * list seen offers the tools here too.
   */
  private scheduleRecheck(): void {
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = setTimeout(() => {
      this.recheck = null;
      void this.recheckPin().catch(() => this.scheduleRecheck());
    }, this.options.backoff.maxMs);
    this.recheck.unref();
  }

  private async recheckPin(): Promise<void> {
    const pending = this.pending;
    if (!pending || this.stopping) return;
    const pinned = await this.options.pins.get(this.name);
    if (this.pending !== pending) return;
    if (pinned?.digest === pending.manifest.digest) this.accepted(pending.manifest, pending.tools);
    else this.scheduleRecheck();
  }

  /**
   * The operator accepts the change they reviewed, named by its digest: it becomes the pin and its
   * tools are offered. `stale` when the change pending now is another one (the server changed its
   * list again since the review: that one needs its own review); null when none is pending (the
   * connection may have ended since). Serialised with the refreshes, so a list arriving meanwhile
   * is judged before or after, never between the check and the pin.
   */
  accept(reviewedDigest: string): Promise<AcceptOutcome> {
    const next = this.refreshing.then(async (): Promise<AcceptOutcome> => {
      const pending = this.pending;
      if (!pending) return null;
      if (pending.manifest.digest !== reviewedDigest) return 'stale';
      await this.options.pins.set(this.name, pending.manifest);
      const previous = this.pinnedDigest ?? 'none';
      this.accepted(pending.manifest, pending.tools);
      return { previous, current: pending.manifest.digest };
    });
    this.refreshing = next.then(() => undefined, () => undefined);
    return next;
  }

  private accepted(manifest: Manifest, tools: ManifestTool[]): void {
    this.pending = null;
    this.pinnedDigest = this.options.config.pin ? manifest.digest : null;
    this.state = 'connected';
    this.withdraw();
    const problems: string[] = [];
    for (const tool of tools) {
      try {
        this.options.tools.register(mcpToolDefinition(this.name, tool, (name, args, signal) => this.call(name, args, signal)));
        this.registered.push(tool.name);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    this.lastError = problems.length > 0 ? clip(`tools left out: ${problems.join('; ')}`) : null;
  }

  private withdraw(): void {
    for (const tool of this.registered) this.options.tools.unregister(mcpToolName(this.name, tool));
    this.registered = [];
  }

  private async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    const client = this.client;
    if (!client || this.state !== 'connected') throw new Error(`MCP server ${this.name} is not connected`);
    // The result union also has the protocol's old `toolResult` form, which carries no content the agent reads.
    return (await client.callTool({ name, arguments: args }, undefined, { signal, timeout: CALL_TIMEOUT_MS })) as McpCallResult;
  }

  /** Every tool the server lists (`listed`, judged whole) and those of them allowed (`tools`). */
  private async listTools(client: Client): Promise<{ listed: { name: string }[]; tools: ManifestTool[] }> {
    const allowed = this.options.config.allowed_tools;
    const listed: { name: string }[] = [];
    const tools: ManifestTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor });
      for (const tool of result.tools) {
        listed.push({ name: tool.name });
        if (listed.length > MAX_LISTED) throw new Error(`the server lists more than ${MAX_LISTED} tools`);
        if (allowed.length > 0 && !allowed.includes(tool.name)) continue;
        tools.push({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown> });
        if (tools.length > MAX_TOOLS) throw new Error(`the server lists more than ${MAX_TOOLS} tools; name the ones to use in allowed_tools`);
      }
      cursor = result.nextCursor;
      if (cursor === undefined) return { listed, tools };
    }
    throw new Error(`the server's tool list runs over more than ${MAX_PAGES} pages`);
  }

  private async record(eventType: string, result: 'allow' | 'deny', severity: 'info' | 'warning', detail: Record<string, unknown>): Promise<void> {
    await this.options.audit.emit({ event_type: eventType, category: 'mcp', result, severity, subsystem: 'mcp', action: this.name, detail: { server: this.name, ...detail } });
  }

  async close(): Promise<void> {
    this.stopping = true;
    this.state = 'stopped';
    if (this.retry) clearTimeout(this.retry);
    if (this.recheck) clearTimeout(this.recheck);
    this.withdraw();
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
  }
}

/** Error text from a server or the network may quote credentials; it is shown in diagnostics. */
function clip(text: string): string {
  const censored = censor(text);
  return censored.length > MAX_ERROR_CHARS ? `${censored.slice(0, MAX_ERROR_CHARS)}…` : censored;
}
