let lastMs = Number.NaN;
let lastIso = '';

/**
 * `new Date(ms).toISOString()`, formatted once per millisecond: under load many records share
 * one, and formatting a date cost more than the rest of queuing a webhook message.
 */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
