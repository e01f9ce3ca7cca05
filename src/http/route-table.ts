import type { RouteOptions } from 'fastify';

interface KnownRoute {
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * Every registered path pattern with its methods, so an unmatched request can be told apart:
 * a known path with the wrong method is 405 with `Allow`, anything else 404.
 */
export class RouteTable {
  private readonly routes = new Map<string, KnownRoute>();

  add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let known = this.routes.get(route.url);
    if (!known) {
      known = { pattern: toRegExp(route.url), methods: new Set() };
      this.routes.set(route.url, known);
    }
    for (const method of methods) known.methods.add(method.toUpperCase());
  }

  /** Methods allowed on `path`, or an empty list when no route has this path. */
  allowedMethods(path: string): string[] {
    const allowed = new Set<string>();
    for (const route of this.routes.values()) {
      if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
    }
    return [...allowed].sort();
  }
}

function toRegExp(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : escape(segment)))
    .join('/');
  // Exact: the router does not ignore trailing slashes, so `/api/v1/status/` is no route (404).
  return new RegExp(`^${source}$`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
