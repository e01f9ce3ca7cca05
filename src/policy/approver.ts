import type { Denial } from './destination.js';

/** A request the policy refused, as it is put to whoever may still allow it. */
export interface ApprovalAsk {
  denial: Denial;
  method: string;
  url: URL;
  sessionId: string | null;
  /** The run (or chat) the request works for. */
  taskId: string | null;
  /** The HTTP request the work was asked by, named on the answer's audit event. */
  requestId?: string;
  /** Aborted when the work is cancelled: the question is withdrawn. */
  signal?: AbortSignal;
}

/**
 * Who answers refused requests: the operator's terminal (`InteractiveApproval`) or an operator
 * over the API (`network.interactive_approval: api`). Resolves true when the request may proceed.
 */
export interface Approver {
  approve(ask: ApprovalAsk): Promise<boolean>;
  /** Forget the session's "for this session" answers kept in this process. */
  endSession?(sessionId: string): void;
}
