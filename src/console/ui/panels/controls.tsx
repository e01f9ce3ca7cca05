import { api } from '../api/client.js';
import { confirmAndRun } from '../api/controls.js';
import type { Control } from '../api/types.js';
import { DiffText } from '../components/diff-text.js';
import { Loaded, Panel } from '../components/panel.js';
import { ActionOutcome, useAction } from '../components/use-action.js';
import { useResource } from '../use-resource.js';

export function ControlsPanel() {
  const controls = useResource(() => api<{ controls: Control[] }>('/controls'), []);
  const action = useAction();

  const run = (control: Control, target: Control['targets'][number]) => action.run(async () => {
    const warning = control.destructive ? ' This cannot be undone.' : '';
    const result = await confirmAndRun(control.id, target.target, target.confirm, `${control.label}: ${target.label}?${warning}`);
    if (result === null) return null;
    await controls.reload();
    return `${control.label} (${result.target}): ${result.previous} → ${result.current}`;
  });

  return (
    <Panel title="Controls" intro="Operator actions. Each asks for confirmation and is recorded in the audit trail.">
      <ActionOutcome action={action} />
      <Loaded resource={controls}>
        {({ controls: list }) => list.map((control) => (
          <div key={control.id} class="card">
            <h3>{control.label}</h3>
            <p>{control.description}</p>
            {control.targets.length === 0 ? <p class="muted">Nothing to apply it to.</p> : (
              <ul class="targets">
                {control.targets.map((target) => (
                  <li key={target.target}>
                    <div class="target-row">
                      <span>{target.label} <span class="muted">({target.state})</span></span>
                      <button type="button" class={control.destructive ? 'danger' : undefined} disabled={!target.available}
                        onClick={() => run(control, target)} aria-label={`Apply: ${control.label}, ${target.label}`}>
                        Apply
                      </button>
                    </div>
                    {target.detail && (
                      <details open>
                        <summary>Review before applying (confirm {target.confirm})</summary>
                        <DiffText text={target.detail} label={`Change to review: ${target.label}`} />
                      </details>
                    )}
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
