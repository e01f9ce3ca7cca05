import type { ComponentChildren } from 'preact';
import { useEffect, useErrorBoundary, useRef, useState } from 'preact/hooks';
import { failureMessage, onRateLimited, request } from './api/client.js';
import { ErrorNotice } from './components/panel.js';
import { APPROVALS_CHANGED, pendingApprovals } from './api/approvals.js';
import { ApprovalsPanel } from './panels/approvals.js';
import { AskPanel } from './panels/ask.js';
import { AuditPanel } from './panels/audit.js';
import { ControlsPanel } from './panels/controls.js';
import { CostsPanel } from './panels/costs.js';
import { DiagnosticsPanel } from './panels/diagnostics.js';
import { JobsPanel } from './panels/jobs.js';
import { MemoryPanel } from './panels/memory.js';
import { ProvidersPanel } from './panels/providers.js';
import { RunsPanel } from './panels/runs.js';
import { SecurityPanel } from './panels/security.js';
import { SessionsPanel } from './panels/sessions.js';
import { StatusPanel } from './panels/status.js';
import { ToolsPanel } from './panels/tools.js';
import { hrefFor, PANELS, useRoute, type PanelId, type Route } from './router.js';
import { useResource } from './use-resource.js';

/** Only the chosen panel is mounted: what is not on screen makes no requests. */
function ActivePanel({ route }: { route: Route }) {
  const panels: Record<PanelId, () => preact.JSX.Element> = {
    status: () => <StatusPanel />,
    ask: () => <AskPanel params={route.params} />,
    runs: () => <RunsPanel params={route.params} />,
    providers: () => <ProvidersPanel />,
    tools: () => <ToolsPanel />,
    sessions: () => <SessionsPanel params={route.params} />,
    memory: () => <MemoryPanel params={route.params} />,
    jobs: () => <JobsPanel params={route.params} />,
    controls: () => <ControlsPanel />,
    approvals: () => <ApprovalsPanel params={route.params} />,
    costs: () => <CostsPanel params={route.params} />,
    audit: () => <AuditPanel params={route.params} />,
    diagnostics: () => <DiagnosticsPanel />,
    security: () => <SecurityPanel />,
  };
  return panels[route.panel]();
}

/** A panel that fails to render says so in its place; the rest of the console stays usable. */
function PanelGuard({ children }: { children: ComponentChildren }) {
  const [error, reset] = useErrorBoundary();
  if (!error) return <>{children}</>;
  return (
    <div class="card">
      <ErrorNotice message={`This panel could not be shown: ${failureMessage(error)}`} />
      <button type="button" onClick={reset}>Try again</button>
    </div>
  );
}

/** A 429 from any request: says how long to wait, and goes away once that time has passed. */
function RateLimitBanner() {
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(Date.now());
  // `now` moves on with the countdown, so a new wait resets it too: an old `now` would add the
  // time since the last tick to the wait shown (61 s for a Retry-After of 60).
  useEffect(() => onRateLimited((seconds) => {
    const at = Date.now();
    setNow(at);
    setUntil(at + seconds * 1000);
  }), []);
  useEffect(() => {
    if (until === null) return undefined;
    const timer = window.setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= until) setUntil(null);
    }, 1000);
    return () => window.clearInterval(timer);
  }, [until]);
  if (until === null) return null;
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  return (
    <p class="banner" role="status">
      The service is rate limiting this browser: wait {seconds} s before trying again.
    </p>
  );
}

/**
 * How many approvals wait for a decision, next to the Approvals link: polled like the visible panel
 * (docs/decisions.md#the-console-polls-only-the-visible-panel) and read again after each decision here.
 */
function PendingBadge() {
  const pending = useResource(pendingApprovals, []);
  useEffect(() => {
    const recount = () => void pending.reload();
    window.addEventListener(APPROVALS_CHANGED, recount);
    return () => window.removeEventListener(APPROVALS_CHANGED, recount);
  }, []);
  const count = pending.data?.length ?? 0;
  if (count === 0) return null;
  return <span class="count-badge" data-pending-approvals={count}>{count}<span class="sr-only"> waiting</span></span>;
}

function SignOut() {
  const [error, setError] = useState<string | null>(null);
  const signOut = async () => {
    try {
      await request('/logout', { method: 'POST' });
      location.assign('/login');
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };
  return (
    <>
      <button type="button" class="secondary" onClick={signOut}>Sign out</button>
      <ErrorNotice message={error} />
    </>
  );
}

export function App() {
  const route = useRoute();
  const firstPanel = useRef(true);
  useEffect(() => {
    const label = PANELS.find((p) => p.id === route.panel)?.label ?? '';
    document.title = `${label} — agentd console`;
    // A keyboard user who opened a panel continues inside it, not back in the panel list.
    if (!firstPanel.current) document.getElementById('panel-title')?.focus();
    firstPanel.current = false;
  }, [route.panel]);
  // The hash is the route, so the skip link moves the focus itself instead of following an anchor.
  const skip = (event: Event) => {
    event.preventDefault();
    document.getElementById('panel-title')?.focus();
  };
  return (
    <div class="layout">
      <a class="skip-link" href="#panel-title" onClick={skip}>Skip to content</a>
      <header class="top">
        <p class="brand">agentd console</p>
        <SignOut />
      </header>
      <nav class="side" aria-label="Panels">
        <ul>
          {PANELS.map((panel) => (
            <li key={panel.id}>
              <a href={hrefFor(panel.id)} aria-current={panel.id === route.panel ? 'page' : undefined}>
                {panel.label}{panel.id === 'approvals' && <PendingBadge />}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main class="content">
        <RateLimitBanner />
        <PanelGuard key={route.panel}>
          <ActivePanel route={route} />
        </PanelGuard>
      </main>
    </div>
  );
}
