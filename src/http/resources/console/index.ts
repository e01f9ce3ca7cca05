import { consolePage } from '../../../console/pages.js';
import { notFound } from '../../../listener/errors.js';
import { sendHtml, webSessionOf } from '../../pipeline.js';
import type { ResourcePlugin } from '../context.js';

/**
 * The operator console: its page at `/` (for a browser with a live session) and its built assets.
 * Registered without the API prefix: these are the browser's addresses.
 */
export const consolePlugin: ResourcePlugin<'web' | 'consoleAssets'> = async (app, { web: { sessions, cookieName }, consoleAssets: assets }) => {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const session = await webSessionOf(request, sessions, cookieName);
    if (session === null) return reply.redirect('/login', 303);
    return sendHtml(reply, consolePage(session.csrfToken));
  });

  for (const asset of assets) {
    app.get(asset.path, { schema: { hide: true } }, async (_request, reply) => {
      if (asset.body === null) throw notFound();
      return reply.type(asset.contentType).send(asset.body);
    });
  }
};
