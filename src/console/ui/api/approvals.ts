import { api } from './client.js';
import type { Approval, OperatorDecision } from './types.js';

/** Fired on the window after this console decided an approval, so the badge counts again at once. */
export const APPROVALS_CHANGED = 'agentd:approvals-changed';

export function pendingApprovals(): Promise<Approval[]> {
  return api<{ approvals: Approval[] }>('/approvals', { query: { state: 'pending' } }).then((data) => data.approvals);
}

/** The most recent approvals, decided or not, newest first. */
export function recentApprovals(): Promise<Approval[]> {
  return api<{ approvals: Approval[] }>('/approvals', { query: { state: 'all', limit: 50 } }).then((data) => data.approvals);
}

/** What `allow_session` would cover, in words: the origin refused at that stage, or the tool. */
export function grantText(approval: Approval): string {
  const until = approval.grant_run_id !== null ? 'for the rest of this run' : 'for the rest of the session';
  return approval.kind === 'tool' ? `every call of ${approval.scope} ${until}` : `requests to ${approval.scope} ${until}`;
}

const QUESTIONS: Record<OperatorDecision, (approval: Approval) => string> = {
  allow_once: () => 'Allow this request once?',
  allow_session: (approval) => `Allow this, and ${grantText(approval)}?`,
  deny: () => 'Deny this request?',
};

/**
 * Browsers cut a long dialog message without saying so; past this many characters the dialog says
 * how much more there is and that the panel shows all of it.
 */
export const DIALOG_REQUEST_CHARS = 2_000;

/** The request as the dialog repeats it: whole, or its beginning and how much is not repeated. */
export function dialogRequest(request: string): string {
  if (request.length <= DIALOG_REQUEST_CHARS) return request;
  return `${request.slice(0, DIALOG_REQUEST_CHARS)}…\n[${request.length - DIALOG_REQUEST_CHARS} more of ${request.length} characters: the Approvals panel shows the whole request]`;
}

/**
 * Decides an approval after the operator confirms it in the browser's own dialog, which repeats
 * the exact request. The confirm string (`approve:<id>` or `deny:<id>`) is the service's rule that
 * the caller meant this very approval. Null when the operator said no.
 */
export async function confirmAndDecide(approval: Approval, decision: OperatorDecision): Promise<Approval | null> {
  if (!window.confirm(`${QUESTIONS[decision](approval)}\n\n${dialogRequest(approval.request)}`)) return null;
  const confirm = `${decision === 'deny' ? 'deny' : 'approve'}:${approval.id}`;
  const decided = await api<Approval>(`/approvals/${encodeURIComponent(approval.id)}`, { method: 'POST', body: { decision, confirm } });
  window.dispatchEvent(new Event(APPROVALS_CHANGED));
  return decided;
}
