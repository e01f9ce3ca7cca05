/** Query parameters of a service URL whose values are credentials (libpq's `password`, `sslpassword`, …). */
const SECRET_PARAM = /pass|secret|token|key/i;
const HIDDEN = '***';

/**
 * A PostgreSQL or Redis URL as it may be shown: in logs, errors, diagnostics and API responses.
 * The password (userinfo or a query parameter) becomes `***`; user, host, port and database stay,
 * since they are what an operator needs to tell which server is meant.
 */
export function redactServiceUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    // Unparseable: everything between the scheme and the last `@` may be credentials.
    return input.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, `$1${HIDDEN}@`).replace(/([?&][^=&]*(?:pass|secret|token|key)[^=&]*=)[^&#]*/gi, `$1${HIDDEN}`);
  }
  if (url.password !== '') url.password = HIDDEN;
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, HIDDEN);
  }
  // URLSearchParams percent-encodes the asterisks it writes back; they are shown as written.
  return url.toString().replaceAll('%2A%2A%2A', HIDDEN);
}

/** `text` (a driver's message) with the password of `url` hidden, should the driver ever repeat it. */
export function withoutPassword(text: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    // Not a URL: the config schema refuses those before anything connects.
  }
  return password === '' ? text : text.replaceAll(password, HIDDEN);
}
