import { withoutNul } from '../security/input/nul.js';
import { censor } from '../security/secrets/secrets.js';

/**
 * A model step's text as viewers may see it while it is written (docs/api.md#run-event-stream):
 * cleaned as the stored answer is (censored, NUL replaced), and released only up to the last
 * whitespace. A secret is a run of non-whitespace characters that may arrive split across pieces,
 * so the trailing run is held back until whitespace or the end of the step shows where it ends;
 * what is released is the new part of the cleaned text before that point.
 */
export class AnswerPreview {
  private raw = '';
  /** Length of `raw` up to its last whitespace, as last released. */
  private stable = 0;
  /** The cleaned text released so far; every release extends it. */
  private released = '';
  /** The cleaner rewrote text already shown: nothing more of this step is shown (the terminal event has the answer). */
  private stopped = false;

  constructor(private readonly emit: (text: string) => void) {}

  /** A piece of the step's text, as the provider streamed it. */
  push(delta: string): void {
    this.raw += delta;
    const boundary = stableLength(this.raw);
    if (boundary <= this.stable) return;
    this.stable = boundary;
    this.release(this.raw.slice(0, boundary));
  }

  /** The step's whole text (as the provider returned it): releases what was held back. */
  end(text: string): void {
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

/** Length of `text` up to and including its last whitespace character (0 when it has none). */
function stableLength(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) {
    if (/\s/.test(text[i]!)) return i + 1;
  }
  return 0;
}
