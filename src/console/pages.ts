import { CONSOLE_SCRIPT_PATH, CONSOLE_STYLE_PATH, FAVICON_PATH, LOGIN_SCRIPT_PATH } from './assets.js';

/**
 * The two HTML pages agentd serves to a browser. Neither carries inline script or style: the CSP
 * allows scripts and styles from the service's own address only.
 */
const HEAD = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${CONSOLE_STYLE_PATH}">
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">`;

/** Single-field form; the key goes in a password input named api_key (docs/api.md#browser-sessions-and-csrf). */
export function loginPage(failed: boolean): string {
  return `<!doctype html>
<html lang="en"><head>${HEAD}
<title>agentd — sign in</title>
<script type="module" src="${LOGIN_SCRIPT_PATH}"></script></head>
<body class="login"><main><h1>agentd</h1>
${failed ? '<p class="error" role="alert">That key was not accepted.</p>\n' : ''}<form method="post" action="/login">
<label for="api_key">Operator key</label>
<input id="api_key" name="api_key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form></main></body></html>
`;
}

/** Text for an HTML page: the five characters that could open markup or end an attribute are escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A refusal shown to a browser that navigated to one of agentd's pages (docs/api.md#error-pages):
 * what happened and what to do, as plain text; neither may hold markup, both are escaped here.
 */
export function errorPage(status: number, headline: string, advice: string): string {
  return `<!doctype html>
<html lang="en"><head>${HEAD}
<title>agentd — ${status} ${escapeHtml(headline)}</title></head>
<body class="login"><main><h1>agentd</h1>
<p class="error" role="alert">${escapeHtml(headline)}</p>
<p>${escapeHtml(advice)}</p>
<p><a href="/">Back to the console</a></p>
</main></body></html>
`;
}

/**
 * The console's shell: the script builds every panel from the API. The CSRF token reaches the
 * script only through the meta tag; it is base64url, safe in an attribute.
 */
export function consolePage(csrfToken: string): string {
  return `<!doctype html>
<html lang="en"><head>${HEAD}
<meta name="csrf-token" content="${csrfToken}">
<title>agentd — console</title>
<script type="module" src="${CONSOLE_SCRIPT_PATH}"></script></head>
<body><div id="app"><p class="boot">Loading the console…</p></div>
<noscript><p class="boot">The console needs JavaScript.</p></noscript></body></html>
`;
}
