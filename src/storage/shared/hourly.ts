/**
 * The statements behind the console's hourly charts, for both backends (`p` is the placeholder of
 * the one parameter, the inclusive start). Stored times are ISO 8601 text in UTC, so the first 13
 * characters (`2026-01-05T13`) name the hour, and the time index answers the range.
 */
export function runsByHourSql(p: string): string {
  return `SELECT substr(created_at, 1, 13) AS hour, status, count(*) AS runs FROM runs
    WHERE created_at >= ${p} GROUP BY substr(created_at, 1, 13), status ORDER BY 1, 2`;
}

export function spendByHourSql(p: string): string {
  return `SELECT substr(timestamp, 1, 13) AS hour, provider, model, count(*) AS calls, sum(cost_usd) AS cost_usd FROM costs
    WHERE timestamp >= ${p} GROUP BY substr(timestamp, 1, 13), provider, model ORDER BY 1, 2, 3`;
}

/** A row's hour as the start of that hour in ISO 8601 (`2026-01-05T13:00:00.000Z`), with plain numbers. */
export function hourRow<T extends { hour: string }>(row: T, numbers: (keyof T)[]): T {
  const out = { ...row, hour: `${row.hour}:00:00.000Z` };
  for (const key of numbers) out[key] = Number(row[key]) as T[keyof T];
  return out;
}
