import { api } from './client.js';
import type { ControlResult } from './types.js';

/**
 * Runs an operator control after the operator confirms it in the browser's own dialog; the
 * confirm string is the service's rule that the caller meant this very target. Null when the
 * operator said no.
 */
export async function confirmAndRun(control: string, target: string, confirmString: string, question: string): Promise<ControlResult | null> {
  if (!window.confirm(question)) return null;
  return api<ControlResult>(`/controls/${encodeURIComponent(control)}`, { method: 'POST', body: { target, confirm: confirmString } });
}
