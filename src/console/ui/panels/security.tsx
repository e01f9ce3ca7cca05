import { Fragment } from 'preact';
import { api } from '../api/client.js';
import type { Check, Diagnostics } from '../api/types.js';
import { Loaded, Panel, StatusBadge } from '../components/panel.js';
import { useResource } from '../use-resource.js';

/** The security posture at a glance: read once, not polled (it changes only with a restart). */
export function SecurityPanel() {
  const report = useResource(() => api<Diagnostics>('/diagnostics'), [], false);
  const find = (d: Diagnostics, section: string, name: string): Check | undefined =>
    d.sections.find((s) => s.key === section)?.checks.find((c) => c.name === name);
  const https = location.protocol === 'https:';
  return (
    <Panel title="Security" intro="How this service is exposed and what protects the console.">
      <Loaded resource={report}>
        {(d) => (
          <dl class="facts">
            {([['Bind address', 'web', 'bind'], ['Operator key', 'web', 'api_key'], ['Outbound network', 'policy', 'default_deny']] as const).map(([label, section, name]) => {
              const check = find(d, section, name);
              return (
                <Fragment key={name}>
                  <dt>{label}</dt>
                  <dd>{check ? <><StatusBadge status={check.status} /> {check.summary}</> : 'not reported'}</dd>
                </Fragment>
              );
            })}
            <dt>Session cookie</dt>
            <dd>HttpOnly; SameSite=Strict; Path=/{https ? '; Secure' : ' (Secure is added when the console is served over HTTPS)'}</dd>
            <dt>Page protection</dt>
            <dd>Scripts and styles only from this service (Content-Security-Policy), no framing, CSRF token on every change</dd>
          </dl>
        )}
      </Loaded>
    </Panel>
  );
}
