/** What the fuzzer knows of a route: enough to build requests that reach its handler, and ones that nearly do. */
export interface FuzzRoute {
  method: string;
  /** Path with `{id}` where a parameter goes (the OpenAPI form). */
  path: string;
  query: string[];
  /** Body fields with their JSON Schema type, or null for a route without a body. */
  fields: Record<string, string> | null;
  required: string[];
  /** Body media type the route takes. */
  contentType: string;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, { type?: string }>; required?: string[] } }> };
}

/** The routes of the served OpenAPI document: a route added to the API is fuzzed without touching this code. */
export function routesFromOpenApi(document: { paths: Record<string, Record<string, OpenApiOperation>> }): FuzzRoute[] {
  const routes: FuzzRoute[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const [contentType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      const properties = media?.schema?.properties;
      routes.push({
        method: method.toUpperCase(),
        path,
        query: (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        fields: properties ? Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, schema.type ?? 'string'])) : null,
        required: media?.schema?.required ?? [],
        contentType: contentType ?? 'application/json',
      });
    }
  }
  return routes;
}

/** Served but left out of the OpenAPI document: the console, its login form and its assets. */
export const CONSOLE_ROUTES: FuzzRoute[] = [
  { method: 'GET', path: '/', query: [], fields: null, required: [], contentType: 'application/json' },
  { method: 'GET', path: '/login', query: ['error'], fields: null, required: [], contentType: 'application/json' },
  { method: 'POST', path: '/login', query: [], fields: { api_key: 'string' }, required: ['api_key'], contentType: 'application/x-www-form-urlencoded' },
  { method: 'GET', path: '/assets/console.js', query: [], fields: null, required: [], contentType: 'application/json' },
  { method: 'GET', path: '/assets/console.css', query: [], fields: null, required: [], contentType: 'application/json' },
  { method: 'GET', path: '/assets/login.js', query: [], fields: null, required: [], contentType: 'application/json' },
];
