/** What started a session, from its id: channel sessions have stable prefixed ids (docs/resources.md#runs). */
export type SessionKind = 'job' | 'webhook' | 'discord' | 'API';

export function sessionKind(sessionId: string): SessionKind {
  if (sessionId.startsWith('job:')) return 'job';
  if (sessionId.startsWith('webhook:')) return 'webhook';
  if (sessionId.startsWith('discord:')) return 'discord';
  return 'API';
}
