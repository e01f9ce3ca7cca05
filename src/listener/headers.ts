/** Headers every response carries, from the REST API and the webhook channel alike. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
});

/**
 * Added to every HTML page (console, login, message pages). Inline script and
 * style could be allowed; the pages have none (docs/decisions.md#the-pages-carry-no-inline-script), so
 * the policy refuses them: an injected `<script>` or `style` attribute does nothing.
 */
export const HTML_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'referrer-policy': 'no-referrer',
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
});
