import { withoutNul } from '../security/input/nul.js';
import { censor } from '../security/secrets/secrets.js';
import { MAX_LIVE_TEXT_CHARS } from '../contracts/agent-turn.js';

/**
 * A model step's text as viewers may see it while it is written (docs/api.md#run-event-stream):
 * cleaned as the stored answer is (censored, NUL replaced), and released only up to the last
 * whitespace. A secret is a run of non-whitespace characters that may arrive split across pieces,
 * so the trailing run is held back until whitespace or the end of the step shows where it ends;
 * what is released is the new part of the cleaned text before that point.
 */
/**
 * Least time between two releases: each censors the text so far, so a long answer streamed in
 * thousands of pieces costs one pass per interval, not one per piece (viewers get at most one
 * piece per interval anyway, docs/api.md#streamed-text).
 */
export const RELEASE_INTERVAL_MS = 30;

export class AnswerPreview {
  private raw = '';
  /** Length of `raw` up to its last whitespace. */
  private stable = 0;
  /** `stable` as last released. */
  private releasedStable = 0;
  private lastRelease = Number.NEGATIVE_INFINITY;
  /** The cleaned text released so far; every release extends it. */
  private released = '';
  /**
   * The cleaner rewrote text already shown, or the step outgrew `MAX_LIVE_TEXT_CHARS`: nothing more
   * of this step is shown (the terminal event has the answer).
   */
  private stopped = false;

  constructor(
    private readonly emit: (text: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A piece of the step's text, as the provider streamed it. */
  push(delta: string): void {
    if (this.stopped) return;
    if (this.raw.length + delta.length > MAX_LIVE_TEXT_CHARS) {
      // Each release cleans the whole text so far: past the bound that would cost more per piece
      // the longer the answer, for text no viewer is sent.
      this.stopped = true;
      this.raw = '';
      return;
    }
    const whitespace = lastWhitespace(delta);
    if (whitespace >= 0) this.stable = this.raw.length + whitespace + 1;
    this.raw += delta;
    if (this.stable <= this.releasedStable || this.now() - this.lastRelease < RELEASE_INTERVAL_MS) return;
    this.releasedStable = this.stable;
    this.lastRelease = this.now();
    this.release(this.raw.slice(0, this.stable));
  }

  /** The step's whole text (as the provider returned it): releases what was held back. */
  end(text: string): void {
    if (text.length > MAX_LIVE_TEXT_CHARS) this.stopped = true;
    this.release(text);
  }

  private release(text: string): void {
    if (this.stopped) return;
    const clean = withoutNul(censor(text));
    if (!clean.startsWith(this.released)) {
      this.stopped = true;
      return;
    }
    const fresh = clean.slice(this.released.length);
    this.released = clean;
    if (fresh) this.emit(fresh);
  }
}

/** Index of the last whitespace character of `text`, or -1. */
function lastWhitespace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    if (isWhitespace(text.charCodeAt(i))) return i;
  }
  return -1;
}

const WHITESPACE = /\s/;

/** What `\s` matches, without a regular expression per character for the ASCII ones. */
function isWhitespace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return WHITESPACE.test(String.fromCharCode(code));
}
