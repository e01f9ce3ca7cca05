/**
 * A part that is built after the one that needs it. Some parts need each other (approvals tell a
 * run that it waits, and the run asks the approvals; the session store asks the agent whether a
 * session is busy, and the agent keeps its sessions there): the first is handed this, and `bind`
 * sets the real part once it exists. Using it before then is a wiring mistake.
 */
export class LateBound<T> {
  private target: T | undefined;

  constructor(private readonly what: string) {}

  bind(target: T): void {
    this.target = target;
  }

  get(): T {
    if (this.target === undefined) throw new Error(`${this.what} was used before it was wired`);
    return this.target;
  }
}
