import type { RouteOptions } from 'fastify';

type Json = Record<string, unknown>;

/**
 * Builds the OpenAPI 3.1 document from the schemas every route declares. Routes are collected as
 * they are registered (`onRoute`), so a route without schemas shows up bare and is easy to spot.
 */
export class OpenApiCollector {
  private readonly paths: Record<string, Record<string, Json>> = {};

  constructor(private readonly info: { title: string; version: string }) {}

  add(route: RouteOptions): void {
    const schema = (route.schema ?? {}) as Json;
    if (schema.hide === true) return;
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toLowerCase());
    for (const method of methods) {
      if (method === 'head') continue;
      (this.paths[path] ??= {})[method] = operation(schema);
    }
  }

  document(): Json {
    return {
      openapi: '3.1.0',
      info: this.info,
      servers: [{ url: '/' }],
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      paths: this.paths,
    };
  }
}

function operation(schema: Json): Json {
  const op: Json = {};
  for (const key of ['summary', 'description', 'tags', 'operationId', 'security']) if (schema[key] !== undefined) op[key] = schema[key];
  const parameters = [
    ...objectParameters(schema.params as Json | undefined, 'path'),
    ...objectParameters(schema.querystring as Json | undefined, 'query'),
  ];
  if (parameters.length > 0) op.parameters = parameters;
  if (schema.body) {
    // A body whose fields are all optional may be omitted altogether (e.g. POST /sessions).
    const required = Array.isArray((schema.body as Json).required) && ((schema.body as Json).required as unknown[]).length > 0;
    op.requestBody = { required, content: { 'application/json': { schema: schema.body } } };
  }
  const responses: Json = {};
  for (const [code, body] of Object.entries((schema.response ?? {}) as Json)) {
    const content = (body as Json).content as Json | undefined;
    responses[code] = content
      ? { description: describe(code), content }
      : { description: describe(code), content: { 'application/json': { schema: body } } };
  }
  if (Object.keys(responses).length === 0) responses['200'] = { description: 'OK' };
  op.responses = responses;
  return op;
}

function objectParameters(schema: Json | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Json).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: s,
    ...((s as Json).description ? { description: (s as Json).description } : {}),
  }));
}

function describe(code: string): string {
  const names: Record<string, string> = {
    '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No Content', '400': 'Bad request',
    '401': 'Unauthorized', '404': 'Not found', '409': 'Conflict', '413': 'Payload too large',
    '507': 'Insufficient storage: the disk is full, the change could not be saved; retry once space is freed',
  };
  return names[code] ?? 'Response';
}

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: string[];
    operationId?: string;
    /** OpenAPI security requirements of this operation (`[]`: no credential needed). */
    security?: Record<string, string[]>[];
    /** Leave the route out of the OpenAPI document. */
    hide?: boolean;
  }
}
