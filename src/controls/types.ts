/** Operator controls (spec: Operator controls; decisions.md: control payloads and confirm templates). */

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
 * template shown to clients is `<verb>:<placeholder>` (decisions.md: `pause-job:<job id>`).
 */
export interface Control {
  id: ControlId;
  label: string;
  description: string;
  destructive: boolean;
  verb: string;
  placeholder: string;
  targets(): Promise<ControlTarget[]>;
  /** The target, or throws the 404 error of its kind. */
  find(target: string): Promise<ControlTarget>;
  apply(target: string): Promise<ControlChange>;
}

export const confirmTemplate = (control: Control): string => `${control.verb}:<${control.placeholder}>`;
export const confirmFor = (control: Control, target: string): string => `${control.verb}:${target}`;
