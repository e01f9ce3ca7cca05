import { MAX_LIVE_TEXT_CHARS } from '../contracts/agent-turn.js';

/**
 * The live text of a run executing here (docs/api.md#run-event-stream): the model's text as it is
 * written, handed on in coalesced pieces — at most one per `DELTA_INTERVAL_MS`, so a provider that
 * streams a token at a time costs its viewers one event per interval, not one per token — and kept
 * (bounded) for viewers that join mid-answer.
 */
export const DELTA_INTERVAL_MS = 30;
/**
 * Most text a run keeps and sends live (the agent shows no more of one step either). The answer
 * is bounded by the provider's `max_tokens` already; past this the rest of it arrives with the
 * terminal event only.
 */
export const MAX_RUN_TEXT_CHARS = MAX_LIVE_TEXT_CHARS;

export class RunText {
  /** What has been handed on so far. */
  private shown = '';
  /** Arrived, not handed on yet. */
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = Number.NEGATIVE_INFINITY;
  private stopped = false;

  /** `publish` hears each coalesced piece with its offset in the run's text. */
  constructor(
    private readonly publish: (text: string, offset: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The text handed on so far (a viewer attached now gets this, then the next pieces). */
  get soFar(): string {
    return this.shown;
  }

  add(text: string): void {
    if (this.stopped || text === '') return;
    if (this.shown.length + this.pending.length + text.length > MAX_RUN_TEXT_CHARS) {
      this.stopped = true;
      return;
    }
    this.pending += text;
    if (this.timer) return;
    const wait = this.lastFlush + DELTA_INTERVAL_MS - this.now();
    if (wait <= 0) this.flush();
    else {
      this.timer = setTimeout(() => this.flush(), wait);
      this.timer.unref();
    }
  }

  /** Hands on what waits now (before a stored event, so the order is kept). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending === '') return;
    const text = this.pending;
    const offset = this.shown.length;
    this.pending = '';
    this.shown += text;
    this.lastFlush = this.now();
    this.publish(text, offset);
  }

  /** The run has ended: what waits is handed on, nothing more is taken. */
  close(): void {
    this.flush();
    this.stopped = true;
  }
}
