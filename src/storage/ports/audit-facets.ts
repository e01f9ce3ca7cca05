import { AUDIT_FACET_FIELDS, type AuditEvent, type AuditFacetField, type AuditFacets, type FacetCount } from './audit.js';

/** Facet values of equal counts: alphabetical (code unit order, whatever the database collates), events without a value last. */
const byValue = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);

/** How many matching events share one combination of the faceted fields. */
export interface FacetGroup {
  fields: Pick<AuditEvent, AuditFacetField>;
  n: number;
}

/** The facets of a query from its matches counted per combination of the faceted fields: each value's count, most first. */
export function facetsFrom(groups: Iterable<FacetGroup>): AuditFacets {
  const tallies = Object.fromEntries(AUDIT_FACET_FIELDS.map((field) => [field, new Map<string | null, number>()])) as Record<AuditFacetField, Map<string | null, number>>;
  for (const { fields, n } of groups) {
    for (const field of AUDIT_FACET_FIELDS) tallies[field].set(fields[field], (tallies[field].get(fields[field]) ?? 0) + n);
  }
  const sorted = (tally: Map<string | null, number>): FacetCount[] =>
    [...tally].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || byValue(a.value, b.value));
  return { category: sorted(tallies.category), result: sorted(tallies.result), severity: sorted(tallies.severity), subsystem: sorted(tallies.subsystem) };
}
