/** Operator controls: their payloads and confirm templates (docs/resources.md#operator-controls). */

export const CONTROL_IDS = ['provider.set_default', 'scheduler.pause_job', 'scheduler.resume_job', 'scheduler.remove_job', 'mcp.accept_manifest'] as const;
export type ControlId = (typeof CONTROL_IDS)[number];

/** Something a control can be applied to, as GET /controls lists it. */
export interface ControlTarget {
  target: string;
  label: string;
  /** The target's current state (`active`, `paused`; `default`, `available`, `unavailable`). */
  state: string;
  /** Whether the control can be applied to it now. */
  available: boolean;
  /** Why it cannot, when it cannot (the 409's message). */
  reason: string | null;
  /**
   * What the operator confirms beyond the target, appended to the confirm string
   * (`<verb>:<target>:<suffix>`): an MCP manifest change names the digest of the change reviewed.
   */
  confirmSuffix?: string;
  /** The exact state the confirm string names; `apply` acts only while the target is still in it. */
  version?: string;
  /** What the operator reviews before applying it, in full (a manifest change as a diff); listed. */
  detail?: string | null;
}

/** What an applied control changed: the target's state before and after. */
export interface ControlChange {
  previous: string;
  current: string;
}

export interface ControlResult extends ControlChange {
  control: ControlId;
  target: string;
}

/**
 * One control over a domain operation. Its confirm string for a target is `<verb>:<target>`; the
 * template shown to clients is `<verb>:<placeholder>` (`pause-job:<job id>`; docs/decisions.md#confirm-strings-name-the-target).
 */
export interface Control {
  id: ControlId;
  label: string;
  description: string;
  destructive: boolean;
  verb: string;
  placeholder: string;
  /** The placeholder of the confirm string's suffix, for a control whose targets carry one. */
  suffixPlaceholder?: string;
  targets(): Promise<ControlTarget[]>;
  /** The target, or throws the 404 error of its kind. */
  find(target: string): Promise<ControlTarget>;
  /** Applies the control to the target `find` gave and the confirm string matched. */
  apply(target: ControlTarget): Promise<ControlChange>;
}

export const confirmTemplate = (control: Control): string =>
  `${control.verb}:<${control.placeholder}>${control.suffixPlaceholder === undefined ? '' : `:<${control.suffixPlaceholder}>`}`;
export const confirmFor = (control: Control, target: ControlTarget): string =>
  `${control.verb}:${target.target}${target.confirmSuffix === undefined ? '' : `:${target.confirmSuffix}`}`;
