import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { AuditEvent } from '../api/types.js';
import { StatusBadge } from '../components/panel.js';
import { Time } from '../components/time.js';
import { hrefFor } from '../router.js';

/** One event in full, with the hashes that link it into the chain (README: verifying a page). */
export function AuditDetail({ event, close }: { event: AuditEvent; close: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus moves to the panel it opened, so a keyboard user lands on what they asked for.
  useEffect(() => heading.current?.focus(), [event.id]);
  // Escape closes it from anywhere on the page, as a dialog would.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [close]);
  const fields: [string, ComponentChildren][] = [
    ['Time', <Time iso={event.timestamp} />], ['Category', event.category], ['Severity', event.severity], ['Actor', event.actor],
    ['Source', event.source], ['Subsystem', event.subsystem], ['Action', event.action], ['Session', event.session_id ? <a class="mono" href={hrefFor('memory', { session_id: event.session_id })}>{event.session_id}</a> : null], ['Task', event.task_id],
  ];
  return (
    <aside class="card detail" aria-labelledby="audit-detail-title">
      <h3 id="audit-detail-title" tabIndex={-1} ref={heading}>{event.event_type} <StatusBadge status={event.result} /></h3>
      <dl class="facts">
        {fields.map(([label, value]) => [<dt key={`${label}-t`}>{label}</dt>, <dd key={`${label}-d`}>{value ?? '—'}</dd>])}
        <dt>Event id</dt><dd class="mono">{event.id}</dd>
        <dt>Chain hash</dt><dd class="mono hash">{event.hash}</dd>
        <dt>Previous hash</dt><dd class="mono hash">{event.prev_hash}</dd>
      </dl>
      <h4>Detail</h4>
      <pre class="audit-json">{JSON.stringify(event.detail, null, 2)}</pre>
      <button type="button" class="secondary" onClick={close}>Close details (Esc)</button>
    </aside>
  );
}
