/** Previous / next for a list paged by position; the page lives in the address, so `show` navigates. */
export function Pager({ offset, size, more, noun, show }: { offset: number; size: number; more: boolean; noun: string; show: (offset: number) => void }) {
  if (offset === 0 && !more) return null;
  return (
    <div class="row">
      <button type="button" class="secondary" disabled={offset === 0} onClick={() => show(Math.max(0, offset - size))}>Previous {noun}</button>
      <button type="button" class="secondary" disabled={!more} onClick={() => show(offset + size)}>More {noun}</button>
    </div>
  );
}

/** A page position from the address: a non-negative integer, else 0. */
export function offsetParam(params: URLSearchParams): number {
  return Math.max(0, Number.parseInt(params.get('offset') ?? '0', 10) || 0);
}
