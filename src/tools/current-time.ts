import type { ToolDefinition } from './types.js';

const MAX_ZONE_LENGTH = 64;

/** Whether `zone` names an IANA time zone this runtime knows (`Intl` throws RangeError otherwise). */
export function isValidTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > MAX_ZONE_LENGTH) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The current time, as an ISO instant plus the wall-clock time in the requested zone. The output is
 * `key: value` lines so both a model and the offline provider can read it.
 */
export function createCurrentTimeTool(options: { now?: () => Date } = {}): ToolDefinition {
  const now = options.now ?? (() => new Date());
  return {
    name: 'current_time',
    description:
      'Get the current date and time. Optionally give an IANA time zone such as "Asia/Tokyo" or "Europe/Paris" ' +
      'to get the local wall-clock time there; the default is UTC.',
    schema: {
      type: 'object',
      properties: {
        timezone: {
          type: 'string',
          description: 'IANA time zone name, for example "America/New_York". Defaults to UTC.',
          maxLength: MAX_ZONE_LENGTH,
        },
      },
      additionalProperties: false,
    },
    async run(args) {
      const zone = typeof args.timezone === 'string' && args.timezone.trim() !== '' ? args.timezone.trim() : 'UTC';
      if (!isValidTimeZone(zone)) {
        throw new Error(`unknown time zone '${zone.slice(0, MAX_ZONE_LENGTH)}': use an IANA name such as "Europe/Paris" or "Asia/Tokyo"`);
      }
      const instant = now();
      const local = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(instant);
      const offset = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
        .formatToParts(instant)
        .find((p) => p.type === 'timeZoneName')?.value;
      return [`utc: ${instant.toISOString()}`, `time_zone: ${zone}`, `local_time: ${local}`, `utc_offset: ${offset ?? 'GMT'}`].join('\n');
    },
  };
}
