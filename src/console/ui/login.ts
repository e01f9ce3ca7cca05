/**
 * The login page's only script. The console's deep links live in the URL's fragment, which a
 * browser never sends: the redirect from `/` to `/login` keeps it, but the form posts to `/login`
 * without it, so the redirect back to `/` would land on the status panel. Posting to `/login`
 * plus the fragment makes the browser carry it through the 303 (a Location without a fragment
 * inherits the request's), so the operator lands on the link they opened.
 */
const form = document.querySelector<HTMLFormElement>('form[action="/login"]');
if (form && location.hash.startsWith('#/')) form.action = `/login${location.hash}`;
