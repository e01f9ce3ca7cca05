import { api } from '../api/client.js';
import type { Diagnostics } from '../api/types.js';
import { DiffText } from '../components/diff-text.js';
import { Loaded, Panel, StatusBadge } from '../components/panel.js';
import { useResource } from '../use-resource.js';

export function DiagnosticsPanel() {
  const report = useResource(() => api<Diagnostics>('/diagnostics'), []);
  return (
    <Panel title="Diagnostics" intro="The same checks as agentd doctor, section by section, with what to do about each problem.">
      <Loaded resource={report}>
        {(d) => (
          <>
            <p>Overall: <StatusBadge status={d.overall} /> ({d.counts.ok} ok, {d.counts.warn} warnings, {d.counts.error} errors)</p>
            {d.sections.map((section) => (
              <div key={section.key} class="card">
                <h3>{section.label} <StatusBadge status={section.status} /></h3>
                <ul class="checks">
                  {section.checks.map((check) => (
                    <li key={check.name}>
                      <StatusBadge status={check.status} /> <strong>{check.name}</strong>: {check.summary}
                      {check.remediation && <p class="remedy">What to do: {check.remediation}</p>}
                      {check.detail && <DiffText text={check.detail} label={`Detail of ${check.name}`} />}
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </>
        )}
      </Loaded>
    </Panel>
  );
}
