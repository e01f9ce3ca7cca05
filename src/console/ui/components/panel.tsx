import type { ComponentChildren } from 'preact';
import type { Resource } from '../use-resource.js';

interface PanelProps {
  title: string;
  /** One line under the title saying what the panel shows. */
  intro?: string;
  children: ComponentChildren;
}

export function Panel({ title, intro, children }: PanelProps) {
  return (
    <section class="panel" aria-labelledby="panel-title">
      <h2 id="panel-title" tabIndex={-1}>{title}</h2>
      {intro && <p class="intro">{intro}</p>}
      {children}
    </section>
  );
}

/** A failure shown where it happened, in words; the rest of the console keeps working. */
export function ErrorNotice({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return <p class="error" role="alert">{message}</p>;
}

/** The error (if any), then `children(data)` once data has arrived. */
export function Loaded<T>({ resource, children }: { resource: Resource<T>; children: (data: T) => ComponentChildren }) {
  return (
    <>
      <ErrorNotice message={resource.error} />
      {resource.data === undefined ? (resource.error ? null : <p class="muted">Loading…</p>) : children(resource.data)}
    </>
  );
}

/** A table that scrolls sideways on a narrow screen; focusable so the keyboard can scroll it too. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status.replace(/[^a-z]/g, '')}`}>{status}</span>;
}
