import { formatTime, formatUtc } from './format.js';

/** A time in the console's zone (components/format.ts), with the same instant in UTC on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return <time dateTime={iso} title={formatUtc(iso)}>{formatTime(iso)}</time>;
}
