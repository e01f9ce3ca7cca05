/**
 * Runs an async task one at a time, and never misses a request: asked while it runs, it runs once
 * more when the current run ends, however many times it was asked meanwhile. Used where a request
 * means "bring my state up to date" (read what was stored, claim what is waiting): one extra run
 * covers every request that came during the previous one, and two runs never overlap.
 */
export class RunAgain {
  private running: Promise<void> | null = null;
  private asked = false;

  /** `task` resolves to false to end the loop even if asked again meanwhile (it failed, or its object closed). */
  constructor(private readonly task: () => Promise<boolean | void>) {}

  /** Runs the task now, or once more after the run in progress. Settles when no run is left. */
  run(): Promise<void> {
    this.asked = true;
    this.running ??= this.loop();
    return this.running;
  }

  /** The runs in progress, if any (settles when the loop ends). */
  get current(): Promise<void> | null {
    return this.running;
  }

  private async loop(): Promise<void> {
    try {
      while (this.asked) {
        this.asked = false;
        if ((await this.task()) === false) return;
      }
    } finally {
      this.asked = false;
      this.running = null;
    }
  }
}
