/**
 * The value of cookie `name` in a Cookie header, or null. Only the one cookie is looked for; other
 * cookies are skipped without decoding (our tokens are URL-safe and need none).
 */
export function readCookie(header: string | undefined, name: string): string | null {
  if (header === undefined || header === '') return null;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    if (eq !== -1 && eq < end && header.slice(start, eq).trim() === name) {
      let value = header.slice(eq + 1, end).trim();
      if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
      return value;
    }
    start = end + 1;
  }
  return null;
}
