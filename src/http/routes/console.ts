import type { ConsoleAsset } from '../../console/assets.js';
import { consolePage } from '../../console/pages.js';
import { notFound } from '../errors.js';
import { sendHtml, webSessionOf } from '../pipeline.js';
import type { WebSessionStore } from '../../storage/ports/web-sessions.js';
import type { RouteInstance } from './context.js';

interface ConsoleRouteOptions {
  sessions: WebSessionStore;
  cookieName: string;
  assets: readonly ConsoleAsset[];
}

/** The operator console: its page at `/` (for a browser with a live session) and its built assets. */
export function consoleRoutes(app: RouteInstance, { sessions, cookieName, assets }: ConsoleRouteOptions): void {
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
}
