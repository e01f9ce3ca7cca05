import { useState } from 'preact/hooks';
import { api, ApiFailure, failureMessage } from '../api/client.js';
import type { Job, Provider } from '../api/types.js';
import { useResource } from '../use-resource.js';

const FIELDS = [
  { name: 'name', label: 'Name', required: true, hint: '' },
  { name: 'schedule', label: 'Schedule', required: true, hint: 'every 30 minutes · daily at 09:00 · weekly on mon 08:00 · at 2030-01-01 12:00 · 0 9 * * 1-5' },
  { name: 'task', label: 'Task (what each run is asked)', required: true, hint: '' },
  { name: 'provider', label: 'Provider', required: false, hint: '' },
  { name: 'timezone', label: 'Time zone', required: false, hint: 'IANA name, e.g. Europe/Paris; empty: UTC' },
  { name: 'active_hours', label: 'Active hours', required: false, hint: 'HH:MM-HH:MM; fires outside are skipped' },
  { name: 'description', label: 'Description', required: false, hint: '' },
] as const;

type FieldName = (typeof FIELDS)[number]['name'];

/**
 * The field a 400 names, so its message sits under that input. The error envelope carries no field
 * of its own; every validation message of a job names it as `field "<key>"` (the scheduler's and the
 * schema's alike), and only an exact key counts: "IANA time zone name" is not the field "name".
 */
function fieldOf(message: string): FieldName | null {
  const named = /\bfield "([a-z_]+)"/.exec(message)?.[1];
  return FIELDS.find((field) => field.name === named)?.name ?? null;
}

const EMPTY: Record<FieldName, string> = { name: '', schedule: '', task: '', provider: '', timezone: '', active_hours: '', description: '' };

export function JobForm({ created }: { created: (job: Job) => void }) {
  const [values, setValues] = useState(EMPTY);
  const providers = useResource(() => api<{ providers: Provider[] }>('/providers'), [], false);
  const [error, setError] = useState<{ field: FieldName | null; message: string } | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const body = Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== '').map(([key, value]) => [key, value.trim()]));
    try {
      const job = await api<Job>('/scheduler/jobs', { method: 'POST', body });
      setValues(EMPTY);
      created(job);
    } catch (failure) {
      const message = failureMessage(failure);
      setError({ field: failure instanceof ApiFailure && failure.status === 400 ? fieldOf(message) : null, message });
    }
  };

  return (
    <form class="card stack" onSubmit={submit} noValidate aria-labelledby="job-form-title">
      <h3 id="job-form-title">New job</h3>
      {FIELDS.map((field) => {
        const id = `job-${field.name}`;
        const invalid = error?.field === field.name;
        const described = [field.hint ? `${id}-hint` : '', invalid ? `${id}-error` : ''].filter(Boolean).join(' ');
        return (
          <div key={field.name} class="field">
            <label for={id}>{field.label}{field.required ? '' : ' (optional)'}</label>
            {field.name === 'provider' ? (
              <select id={id} name={field.name} value={values.provider} aria-invalid={invalid ? 'true' : undefined} aria-describedby={described || undefined}
                onChange={(e) => setValues({ ...values, provider: e.currentTarget.value })}>
                <option value="">the default at each fire</option>
                {(providers.data?.providers ?? []).map((p) => (
                  <option key={p.name} value={p.name}>{p.name} ({p.model}){p.is_default ? ', the default now' : ''}{p.available ? '' : ', not available'}</option>
                ))}
              </select>
            ) : (
              <input id={id} name={field.name} value={values[field.name]} aria-invalid={invalid ? 'true' : undefined}
                aria-describedby={described || undefined}
                onInput={(e) => setValues({ ...values, [field.name]: e.currentTarget.value })} />
            )}
            {field.hint && <span id={`${id}-hint`} class="hint">{field.hint}</span>}
            {invalid && <span id={`${id}-error`} class="error field-error" role="alert">{error.message}</span>}
          </div>
        );
      })}
      {error && error.field === null && <p class="error" role="alert">{error.message}</p>}
      <div><button type="submit">Create job</button></div>
    </form>
  );
}
