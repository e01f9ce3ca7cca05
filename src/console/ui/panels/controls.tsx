import { useState } from 'preact/hooks';
import { api, failureMessage } from '../api/client.js';
import { confirmAndRun } from '../api/controls.js';
import type { Control } from '../api/types.js';
import { ErrorNotice, Loaded, Panel } from '../components/panel.js';
import { useResource } from '../use-resource.js';

export function ControlsPanel() {
  const controls = useResource(() => api<{ controls: Control[] }>('/controls'), []);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const run = async (control: Control, target: Control['targets'][number]) => {
    setError(null);
    setNotice(null);
    try {
      const warning = control.destructive ? ' This cannot be undone.' : '';
      const result = await confirmAndRun(control.id, target.target, target.confirm, `${control.label}: ${target.label}?${warning}`);
      if (result === null) return;
      setNotice(`${control.label} (${result.target}): ${result.previous} → ${result.current}`);
      await controls.reload();
    } catch (failure) {
      setError(failureMessage(failure));
    }
  };

  return (
    <Panel title="Controls" intro="Operator actions. Each asks for confirmation and is recorded in the audit trail.">
      <ErrorNotice message={error} />
      {notice && <p class="notice" role="status">{notice}</p>}
      <Loaded resource={controls}>
        {({ controls: list }) => list.map((control) => (
          <div key={control.id} class="card">
            <h3>{control.label}</h3>
            <p>{control.description}</p>
            {control.targets.length === 0 ? <p class="muted">Nothing to apply it to.</p> : (
              <ul class="targets">
                {control.targets.map((target) => (
                  <li key={target.target}>
                    <span>{target.label} <span class="muted">({target.state})</span></span>
                    <button type="button" class={control.destructive ? 'danger' : undefined} disabled={!target.available}
                      onClick={() => run(control, target)} aria-label={`Apply: ${control.label}, ${target.label}`}>
                      Apply
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
        ))}
      </Loaded>
    </Panel>
  );
}
