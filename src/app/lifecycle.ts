/** When a part starts: as the app is created, or when it starts serving (`listen()`). */
export type LifecyclePhase = 'create' | 'listen';

/** One part of the running service as its lifecycle sees it. */
export interface LifecyclePart {
  readonly name: string;
  /** The phase whose start runs `start`; `create` when not given. */
  readonly phase?: LifecyclePhase;
  /** Absent: the part holds what it was built with from the outset, and only needs stopping. */
  start?(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/**
 * The service's parts in start order; they stop in the reverse order, so what a part needs while it
 * stops (the database, the listeners' routes) is still there. A part is stopped only once started
 * (a part without `start` counts as started): an app that never listened leaves its listeners
 * alone. A part whose start fails is stopped with the ones started before it, since it may have
 * got half-way (one of two connections open), and the start's error is what the caller sees.
 */
export class Lifecycle {
  private readonly started = new Set<LifecyclePart>();
  private stopping: Promise<void> | null = null;

  private readonly parts: readonly LifecyclePart[];

  /** `null` stands for a part this configuration leaves out (no Redis, no webhook channel). */
  constructor(parts: readonly (LifecyclePart | null)[]) {
    this.parts = parts.filter((part): part is LifecyclePart => part !== null);
    for (const part of this.parts) if (!part.start) this.started.add(part);
  }

  /** Starts the parts of `phase` in order; a failure stops everything started so far, then throws. */
  async start(phase: LifecyclePhase): Promise<void> {
    for (const part of this.parts) {
      // Nothing starts once stopping has begun (a signal during start-up).
      if (this.stopping) return;
      if (!part.start || (part.phase ?? 'create') !== phase || this.started.has(part)) continue;
      this.started.add(part);
      try {
        await part.start();
      } catch (error) {
        await this.stop().catch(() => undefined);
        throw error;
      }
    }
  }

  /**
   * Stops the started parts in reverse order, each even when one before it failed (a listener that
   * will not close must not keep the database open); the first failure is thrown at the end.
   * Safe to call twice: the second call waits for the first.
   */
  stop(): Promise<void> {
    return (this.stopping ??= this.stopStarted());
  }

  private async stopStarted(): Promise<void> {
    const failures: unknown[] = [];
    for (const part of [...this.parts].reverse()) {
      if (!this.started.has(part)) continue;
      try {
        await part.stop();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
