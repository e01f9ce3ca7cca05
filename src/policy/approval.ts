import { createHash } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { AuditSink } from '../storage/ports/audit.js';
import type { ApprovalAsk, Approver } from './approver.js';

/**
 * Interactive approval: when the policy refuses something and an operator sits at the terminal,
 * ask them. `y` allows this one request, `a` allows it for the rest of the session (a hash of the
 * action and detail pair is remembered until `endSession`), anything else — including no answer
 * within the timeout — denies. Without a terminal nobody can answer, so everything is denied
 * without a prompt.
 */

export type ApprovalAnswer = 'once' | 'always' | 'deny' | 'timeout';

export interface ApprovalOptions {
  /** Where answers are read from; default `process.stdin`. */
  input?: Readable;
  /** Where prompts are written; default `process.stderr` (stdout carries the ready line). */
  output?: Writable;
  /** Whether a person can answer; default `process.stdin.isTTY`. */
  isTTY?: boolean;
  /** How long a prompt waits for an answer before denying; default 60 s. */
  timeoutMs?: number;
  audit?: AuditSink;
  /** Bounds on the remembered set: sessions tracked, and pairs per session (oldest evicted). */
  maxSessions?: number;
  maxRememberedPerSession?: number;
  /** Prompts allowed to wait in line; beyond that requests are denied at once. */
  maxPending?: number;
}

const MAX_LINE = 1024;

/** Control characters could drive the operator's terminal (escape sequences); show them as `?`. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function pairHash(action: string, detail: string): string {
  return createHash('sha256').update(JSON.stringify([action, detail])).digest('hex');
}

function parseAnswer(line: string): ApprovalAnswer {
  const answer = line.trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return 'once';
  if (answer === 'a' || answer === 'always') return 'always';
  return 'deny';
}

export class InteractiveApproval implements Approver {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly isTTY: boolean;
  private readonly timeoutMs: number;
  private readonly audit: AuditSink | undefined;
  private readonly maxSessions: number;
  private readonly maxPerSession: number;
  private readonly maxPending: number;
  private readonly remembered = new Map<string, Set<string>>();
  /** Tail of the prompt queue: each prompt starts when the previous one has finished. */
  private queue: Promise<unknown> = Promise.resolve();
  private pending = 0;

  constructor(options: ApprovalOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stderr;
    this.isTTY = options.isTTY ?? process.stdin.isTTY === true;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.audit = options.audit;
    this.maxSessions = options.maxSessions ?? 1000;
    this.maxPerSession = options.maxRememberedPerSession ?? 1000;
    this.maxPending = options.maxPending ?? 100;
  }

  /** Puts a refused gateway request to the operator (address denials are never put). */
  approve({ denial, sessionId, requestId }: ApprovalAsk): Promise<boolean> {
    if (!denial.overridable) return Promise.resolve(false);
    const origin = `${denial.scheme}://${denial.host.includes(':') ? `[${denial.host}]` : denial.host}:${denial.port}`;
    if (denial.stage === 'rest') {
      // An explicit REST deny rule is never overridden for the session: `a` counts as `y`.
      return this.promptUser('network_rest_request', `${denial.method} ${origin}${denial.path} (overrides ${denial.rule ?? 'a REST rule'})`, sessionId, requestId, false);
    }
    const [action, detail] = ['network_request', `${denial.category} ${origin}`];
    if (this.checkRemembered(action, detail, sessionId)) return Promise.resolve(true);
    return this.promptUser(action, detail, sessionId, requestId);
  }

  /** Whether the operator answered `a` for this exact pair earlier in the session. */
  checkRemembered(action: string, detail: string, sessionId?: string | null): boolean {
    if (!sessionId) return false;
    return this.remembered.get(sessionId)?.has(pairHash(action, detail)) ?? false;
  }

  /**
   * Ask the operator; resolves `true` when the request may proceed. Prompts run one at a time.
   * Without a session id an `a` answer counts as `y`: there is no session whose end would clear it.
   * `requestId` names the HTTP request the refused call was made for on the answer's audit event.
   * With `rememberable` false an `a` answer counts as `y` (an explicit REST deny rule).
   */
  async promptUser(action: string, detail: string, sessionId?: string | null, requestId?: string, rememberable = true): Promise<boolean> {
    if (!this.isTTY) return false;
    if (this.pending >= this.maxPending) {
      await this.record(action, detail, sessionId, requestId, 'deny', 'too many prompts waiting');
      return false;
    }
    this.pending++;
    const run = this.queue.then(() => this.ask(action, detail, rememberable ? sessionId : null, requestId, sessionId));
    this.queue = run.catch(() => undefined);
    return run.finally(() => {
      this.pending--;
    });
  }

  /** Forget every `a` answer of the session. */
  endSession(sessionId: string): void {
    this.remembered.delete(sessionId);
  }

  /** `sessionId` is where an `a` answer is remembered (null: nowhere); `auditSession` is who asked. */
  private async ask(action: string, detail: string, sessionId: string | null | undefined, requestId: string | undefined, auditSession: string | null | undefined): Promise<boolean> {
    // An answer given to an earlier prompt in the queue may already cover this one.
    if (this.checkRemembered(action, detail, sessionId)) return true;
    this.discardTypeAhead();
    this.output.write(
      `\n[agentd] ${printable(action)} was denied by policy: ${printable(detail)}\n` +
        'Allow? [y] this once, [a] always for this session, [N]o: ',
    );
    const line = await this.readLine();
    const answer = line === null ? 'timeout' : parseAnswer(line);
    if (answer === 'timeout') this.output.write(`\n[agentd] no answer within ${Math.round(this.timeoutMs / 1000)} s: denied\n`);
    if (answer === 'always' && sessionId) this.remember(sessionId, pairHash(action, detail));
    await this.record(action, detail, auditSession, requestId, answer);
    return answer === 'once' || answer === 'always';
  }

  /** Text typed before the prompt appeared must not answer it. */
  private discardTypeAhead(): void {
    if (this.input.readableFlowing) return;
    while (this.input.read() !== null) {
      // drained
    }
  }

  /** One line from the input, or `null` on timeout or end of input. */
  private readLine(): Promise<string | null> {
    return new Promise((resolve) => {
      let line = '';
      const finish = (value: string | null): void => {
        clearTimeout(timer);
        this.input.off('data', onData);
        this.input.off('end', onEnd);
        this.input.pause();
        resolve(value);
      };
      const onData = (chunk: Buffer | string): void => {
        const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
        const newline = text.indexOf('\n');
        line = (line + (newline >= 0 ? text.slice(0, newline) : text)).slice(0, MAX_LINE);
        if (newline >= 0) finish(line);
      };
      const onEnd = (): void => finish(null);
      const timer = setTimeout(() => finish(null), this.timeoutMs);
      this.input.on('data', onData);
      this.input.once('end', onEnd);
      this.input.resume();
    });
  }

  private remember(sessionId: string, hash: string): void {
    let set = this.remembered.get(sessionId);
    if (!set) {
      if (this.remembered.size >= this.maxSessions) {
        const oldest = this.remembered.keys().next().value;
        if (oldest !== undefined) this.remembered.delete(oldest);
      }
      set = new Set();
      this.remembered.set(sessionId, set);
    }
    if (set.size >= this.maxPerSession) {
      const oldest = set.values().next().value;
      if (oldest !== undefined) set.delete(oldest);
    }
    set.add(hash);
  }

  /** Resolves once the answer is on record (the sink may write asynchronously); never rejects. */
  private async record(
    action: string,
    detail: string,
    sessionId: string | null | undefined,
    requestId: string | undefined,
    answer: ApprovalAnswer,
    note?: string,
  ): Promise<void> {
    const allowed = answer === 'once' || answer === 'always';
    try {
      await this.audit?.emit({
        event_type: 'approval_answer',
        category: 'policy',
        result: allowed ? 'allow' : 'deny',
        subsystem: 'approval',
        actor: 'operator',
        action,
        session_id: sessionId ?? null,
        detail: { action, detail, answer, ...(note ? { note } : {}) },
        request_id: requestId,
      });
    } catch {
      // The answer stands even when the audit log is unavailable; the caller audits the request.
    }
  }
}
