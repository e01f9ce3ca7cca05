import { describe, expect, it } from 'vitest';
import { matchesQuery, parseAuditTimestamp, queryLength } from './audit-query.js';

describe('parseAuditTimestamp', () => {
  it('reads Z and offsets as the same instant, in the canonical UTC form', () => {
    const instant = '2026-01-05T11:00:00.000Z';
    for (const text of [
      '2026-01-05T11:00:00Z', '2026-01-05T11:00:00.000Z', '2026-01-05T11:00Z', '2026-01-05t11:00:00z',
      '2026-01-05T13:00:00+02:00', '2026-01-05T13:00:00+0200', '2026-01-05T13:00:00+02', '2026-01-05T05:30:00-05:30',
      '2026-01-05 11:00:00Z', '2026-01-06T00:00:00+13:00',
    ]) expect(parseAuditTimestamp(text), text).toBe(instant);
  });

  it('reads a space before the offset as + (an unencoded + in a query string arrives as one)', () => {
    expect(parseAuditTimestamp('2026-01-05T13:00:00 02:00')).toBe('2026-01-05T11:00:00.000Z');
  });

  it('keeps milliseconds and rounds finer fractions up, so comparisons with stored times stay exact', () => {
    expect(parseAuditTimestamp('2026-01-05T11:00:00.5Z')).toBe('2026-01-05T11:00:00.500Z');
    expect(parseAuditTimestamp('2026-01-05T11:00:00,25Z')).toBe('2026-01-05T11:00:00.250Z');
    expect(parseAuditTimestamp('2026-01-05T11:00:00.123000Z')).toBe('2026-01-05T11:00:00.123Z');
    expect(parseAuditTimestamp('2026-01-05T11:00:00.1230001Z')).toBe('2026-01-05T11:00:00.124Z');
    expect(parseAuditTimestamp('2026-01-05T11:00:00.9999Z')).toBe('2026-01-05T11:00:01.000Z');
  });

  it('accepts 29 February only in leap years', () => {
    expect(parseAuditTimestamp('2028-02-29T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(parseAuditTimestamp('2000-02-29T00:00:00Z')).toBe('2000-02-29T00:00:00.000Z');
    expect(parseAuditTimestamp('2026-02-29T00:00:00Z')).toBeNull();
    expect(parseAuditTimestamp('1900-02-29T00:00:00Z')).toBeNull();
  });

  it('refuses what is not a date-time with Z or an offset', () => {
    for (const text of [
      '', 'yesterday', '1767610800', '2026-01-05', '2026-01-05T11:00:00', '2026-13-05T11:00:00Z', '2026-04-31T11:00:00Z',
      '2026-01-05T24:00:00Z', '2026-01-05T11:60:00Z', '2026-01-05T11:00:60Z', '2026-01-05T11:00:00+24:00', '2026-01-05T11:00:00+02:61',
      '26-01-05T11:00:00Z', '2026-1-5T11:00:00Z', '2026-01-05T11:00:00.Z', '2026-01-05T11:00:00ZZ', ' 2026-01-05T11:00:00Z x',
      '0000-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00', '+02026-01-05T11:00:00Z',
    ]) expect(parseAuditTimestamp(text), text).toBeNull();
  });
});

describe('matchesQuery', () => {
  it('is a lower-cased substring of the event type or of the detail as JSON, never across the two', () => {
    const detail = JSON.stringify({ url: 'https://API.example/x', note: 'Überweisung' });
    expect(matchesQuery('web.Login', detail, 'web.login')).toBe(true);
    expect(matchesQuery('web.Login', detail, 'api.example/x')).toBe(true);
    expect(matchesQuery('web.Login', detail, 'überweisung')).toBe(true);
    expect(matchesQuery('web.Login', detail, '"url":"https')).toBe(true);
    expect(matchesQuery('web.Login', detail, 'login{')).toBe(false);
    expect(queryLength('Ü€x')).toBe(3);
    expect(queryLength('😀a')).toBe(2);
  });
});
