import { useEffect, useState } from 'preact/hooks';

/**
 * The console's address is its hash: `#/audit?result=deny` opens the audit panel with that
 * filter, so a link or a reload restores what the operator was looking at.
 */
export const PANELS = [
  { id: 'status', label: 'Status' },
  { id: 'ask', label: 'Ask' },
  { id: 'runs', label: 'Runs' },
  { id: 'providers', label: 'Providers' },
  { id: 'tools', label: 'Tools' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'memory', label: 'Memory' },
  { id: 'jobs', label: 'Scheduled jobs' },
  { id: 'controls', label: 'Controls' },
  { id: 'approvals', label: 'Approvals' },
  { id: 'costs', label: 'Costs' },
  { id: 'audit', label: 'Audit trail' },
  { id: 'diagnostics', label: 'Diagnostics' },
  { id: 'security', label: 'Security' },
] as const;

export type PanelId = (typeof PANELS)[number]['id'];

export interface Route {
  panel: PanelId;
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const q = text.indexOf('?');
  const name = q === -1 ? text : text.slice(0, q);
  const panel = PANELS.find((p) => p.id === name)?.id ?? 'status';
  return { panel, params: new URLSearchParams(q === -1 ? '' : text.slice(q + 1)) };
}

/** `#/panel?k=v`, leaving out empty values. */
export function hrefFor(panel: PanelId, params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value);
  const text = query.toString();
  return `#/${panel}${text === '' ? '' : `?${text}`}`;
}

export function navigate(panel: PanelId, params: Record<string, string | undefined> = {}): void {
  location.hash = hrefFor(panel, params);
}

/** The current route, following the hash. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', follow);
    // The hash may have changed between the first render and this effect (which runs after paint).
    follow();
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return route;
}

/** The Runs panel's address: `{run}` opens one run's trace, `{session_id}` or `{job_id}` lists those runs. */
export function runsHref(params: { run: string } | { session_id: string } | { job_id: string }): string {
  return `#/runs?${new URLSearchParams(params).toString()}`;
}
