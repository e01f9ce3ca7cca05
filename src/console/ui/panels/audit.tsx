import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { AuditEvent, AuditFacetField, AuditPage } from '../api/types.js';
import { Time } from '../components/time.js';
import { Loaded, Panel, StatusBadge, TableWrap } from '../components/panel.js';
import { navigate } from '../router.js';
import { useResource } from '../use-resource.js';
import { AuditDetail } from './audit-detail.js';
import { AUDIT_FILTERS, AuditFilters, type AuditFilterValues } from './audit-filters.js';

const PAGE_SIZE = 20;
const FACETS: AuditFacetField[] = ['result', 'severity', 'subsystem', 'category'];

/** The filters and page in the address (`#/audit?result=deny&offset=20`), so a link restores them. */
function filtersOf(params: URLSearchParams): AuditFilterValues {
  return Object.fromEntries(AUDIT_FILTERS.map(({ name }) => [name, params.get(name) ?? ''])) as AuditFilterValues;
}

export function AuditPanel({ params }: { params: URLSearchParams }) {
  const filters = filtersOf(params);
  const offset = Math.max(0, Number.parseInt(params.get('offset') ?? '0', 10) || 0);
  const key = params.toString();
  const page = useResource(() => api<AuditPage>('/audit', {
    query: { ...apiFilters(filters), limit: PAGE_SIZE, offset },
  }), [key]);
  const [selected, setSelected] = useState<AuditEvent | null>(null);
  // Other filters or another page: the open event may not be among the rows any more.
  useEffect(() => setSelected(null), [key]);
  const show = (values: AuditFilterValues, at = 0) => navigate('audit', { ...values, offset: at > 0 ? String(at) : undefined });

  return (
    <Panel title="Audit trail" intro="Every security-relevant event, redacted and hash-chained, newest first.">
      <AuditFilters values={filters} apply={(values) => show(values)} />
      <Loaded resource={page}>
        {(p) => (
          <div class="audit-layout">
            <div>
              <Facets page={p} filters={filters} choose={(field, value) => show({ ...filters, [field]: value })} />
              <p aria-live="polite">
                {p.total === 0 ? 'No events match.' : `Events ${offset + 1}–${offset + p.events.length} of ${counted(p, p.total)}`}
              </p>
              {p.events.length > 0 && (
                <TableWrap label="Audit events">
                  <table>
                    <thead>
                      <tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Result</th><th scope="col">Severity</th><th scope="col">Subsystem</th><th scope="col">Actor</th></tr>
                    </thead>
                    <tbody>
                      {p.events.map((event) => (
                        <tr key={event.id} class={selected?.id === event.id ? 'selected' : undefined}>
                          <td><Time iso={event.timestamp} /></td>
                          <td><button type="button" class="link" onClick={() => setSelected(event)} aria-label={`Details of ${event.event_type} at ${event.timestamp}`}>{event.event_type}</button></td>
                          <td><StatusBadge status={event.result} /></td>
                          <td>{event.severity}</td>
                          <td>{event.subsystem ?? '—'}</td>
                          <td>{event.actor ?? '—'}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
              <div class="row">
                <button type="button" class="secondary" disabled={offset === 0} onClick={() => show(filters, Math.max(0, offset - PAGE_SIZE))}>Previous</button>
                <button type="button" class="secondary" disabled={!p.has_more} onClick={() => show(filters, offset + PAGE_SIZE)}>Next</button>
              </div>
            </div>
            {selected && <AuditDetail event={selected} close={() => setSelected(null)} />}
          </div>
        )}
      </Loaded>
    </Panel>
  );
}

/** since/until are typed as date-times in the console's zone (components/format.ts); the API wants ISO 8601 with an offset. */
function apiFilters(filters: AuditFilterValues): Record<string, string> {
  const out: Record<string, string> = { ...filters };
  for (const bound of ['since', 'until'] as const) {
    const date = filters[bound] ? new Date(filters[bound]) : null;
    out[bound] = date && !Number.isNaN(date.getTime()) ? date.toISOString() : filters[bound];
  }
  return out;
}

function Facets({ page, filters, choose }: { page: AuditPage; filters: AuditFilterValues; choose: (field: AuditFacetField, value: string) => void }) {
  return (
    <div class="facets">
      {FACETS.map((field) => (
        <div key={field} class="facet">
          <h3>{field}</h3>
          <ul>
            {page.facets[field].filter((f) => f.value !== null).map((f) => (
              <li key={f.value}>
                <button type="button" class="chip" aria-pressed={filters[field] === f.value}
                  onClick={() => choose(field, f.value ?? '')} aria-label={`Filter ${field} ${f.value}: ${counted(page, f.count)} events`}>
                  {f.value} <span class="count">{counted(page, f.count)}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

/** A total or facet count as shown: past the API's count cap it is an estimate (`total_is_estimate`), said so. */
function counted(page: AuditPage, n: number): string {
  return page.total_is_estimate ? `about ${n.toLocaleString('en')}` : String(n);
}
