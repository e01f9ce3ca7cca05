/** What stands where a deleted turn's text was. */
export const ERASED_TEXT = '[deleted]';

/**
 * A run event's JSON with every string equal to `text` replaced by `ERASED_TEXT`, or null when it
 * holds none (the event is then left byte for byte as it was sent). Every backend erases a deleted
 * turn's copies in its run's log this way.
 */
export function eraseFromEvent(data: string, text: string): string | null {
  const parsed = JSON.parse(data) as unknown;
  const rewritten = JSON.stringify(replaceStrings(parsed, text));
  return rewritten === JSON.stringify(parsed) ? null : rewritten;
}

/** The text as it appears inside a JSON string: a cheap filter before parsing an event. */
export function jsonFragment(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function replaceStrings(value: unknown, text: string): unknown {
  if (typeof value === 'string') return value === text ? ERASED_TEXT : value;
  if (Array.isArray(value)) return value.map((item) => replaceStrings(item, text));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceStrings(item, text)]));
  }
  return value;
}
