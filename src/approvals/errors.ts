/** Refusals of an operator's decision; the HTTP layer maps each code to a catalogue code and status. */
export type ApprovalErrorCode =
  | 'approval_not_found'
  /** The confirm string is missing or not exactly `approve:<id>` / `deny:<id>`. */
  | 'confirm_mismatch'
  /** It was decided already (by an operator, a timeout, a restart or its run's end). */
  | 'already_decided'
  /** `allow_session` on an approval that offers `allow_once` only (an explicit REST deny rule, a channel request outside a run). */
  | 'session_grant_refused';

export class ApprovalError extends Error {
  override readonly name: string = 'ApprovalError';
  constructor(
    readonly code: ApprovalErrorCode,
    message: string,
  ) {
    super(message);
  }
}
