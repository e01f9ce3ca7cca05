/** Refusals of operator controls; the HTTP layer maps each code to a catalogue code and status. */
export type ControlErrorCode =
  | 'control_not_found'
  | 'target_not_found'
  /** The confirm string is missing or not exactly the one for the target. */
  | 'confirm_mismatch'
  /** The target is not in a state the control applies to (already paused, provider unusable). */
  | 'conflict';

export class ControlError extends Error {
  override readonly name: string = 'ControlError';
  constructor(
    readonly code: ControlErrorCode,
    message: string,
  ) {
    super(message);
  }
}
