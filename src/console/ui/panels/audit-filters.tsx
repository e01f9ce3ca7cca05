import { useEffect, useState } from 'preact/hooks';
import { CONSOLE_TIME_ZONE } from '../components/format.js';

/** The filters of the audit panel, in the order of the form. */
export const AUDIT_FILTERS = [
  { name: 'result', label: 'Result', options: ['allow', 'deny', 'error'] },
  { name: 'severity', label: 'Severity', options: ['info', 'warning', 'error'] },
  { name: 'category', label: 'Category', options: null },
  { name: 'subsystem', label: 'Subsystem', options: null },
  { name: 'actor', label: 'Actor', options: null },
  { name: 'source', label: 'Source', options: null },
  { name: 'task_id', label: 'Run or task id', options: null },
  { name: 'q', label: 'Text (3+ characters)', options: null },
  { name: 'since', label: `Since (${CONSOLE_TIME_ZONE})`, options: null },
  { name: 'until', label: `Until (${CONSOLE_TIME_ZONE})`, options: null },
] as const;

export type AuditFilterName = (typeof AUDIT_FILTERS)[number]['name'];
export type AuditFilterValues = Record<AuditFilterName, string>;

/** The form keeps its own draft; `apply` hands it to the address, which is what the list reads. */
export function AuditFilters({ values, apply }: { values: AuditFilterValues; apply: (values: AuditFilterValues) => void }) {
  const [draft, setDraft] = useState(values);
  const shown = JSON.stringify(values);
  useEffect(() => setDraft(values), [shown]);
  const set = (name: AuditFilterName, value: string) => setDraft({ ...draft, [name]: value });
  const clear = () => apply(Object.fromEntries(AUDIT_FILTERS.map(({ name }) => [name, ''])) as AuditFilterValues);
  return (
    <form class="filters" onSubmit={(e) => { e.preventDefault(); apply(draft); }} aria-label="Audit filters">
      {AUDIT_FILTERS.map((filter) => {
        const id = `audit-${filter.name}`;
        return (
          <div key={filter.name} class="field">
            <label for={id}>{filter.label}</label>
            {filter.options ? (
              <select id={id} value={draft[filter.name]} onChange={(e) => set(filter.name, e.currentTarget.value)}>
                <option value="">any</option>
                {filter.options.map((option) => <option key={option} value={option}>{option}</option>)}
              </select>
            ) : filter.name === 'since' || filter.name === 'until' ? (
              <input id={id} type="datetime-local" step={1} value={draft[filter.name]} onInput={(e) => set(filter.name, e.currentTarget.value)} />
            ) : (
              <input id={id} type="text" value={draft[filter.name]} onInput={(e) => set(filter.name, e.currentTarget.value)} />
            )}
          </div>
        );
      })}
      <div class="row">
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick={clear}>Clear</button>
      </div>
    </form>
  );
}
