import type { RouteOptions } from 'fastify';
import { errorSchema } from '../listener/envelope.js';
import { clientErrorRef, clientErrorResponses, isClientError } from './openapi-responses.js';
import { UNSAFE_METHODS } from './pipeline.js';

type Json = Record<string, unknown>;

/** The document as served; its paths and components are free-form JSON. */
export interface OpenApiDocument {
  [key: string]: unknown;
  openapi: string;
  info: { title: string; version: string; license: { name: string; identifier: string } };
  paths: Record<string, unknown>;
  components: Record<string, unknown>;
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };
/** The package's licence (package.json), which the document states for whoever generates a client from it. */
const LICENSE = { name: 'MIT', identifier: 'MIT' };

/**
 * Builds the OpenAPI 3.1 document from the schemas every route declares. Routes are collected as
 * they are registered (`onRoute`), so a route without schemas shows up bare and is easy to spot.
 *
 * Each operation lists the client errors it can answer, each a named response of the error
 * envelope (`components.responses`): those of the pipeline, which the collector knows from the
 * route (401 and 429 for every route, 403 for a state change the session cookie may authenticate,
 * 400 where input is validated, 413 and 415 where a body is read), and those of the handler, which
 * the route declares with `errorSchema` (404, 409). `default` covers the rest (405, 503, …): the
 * envelope, which is one named schema (`Error`) rather than a copy per route.
 */
export class OpenApiCollector {
  private readonly paths: Record<string, Record<string, Json>> = {};
  private readonly schemas: Record<string, Json> = { Error: errorSchema };
  /** Schemas that routes declare by value and the document names by reference. */
  private readonly named = new Map<unknown, Json>([[errorSchema, ERROR_REF]]);
  /** Client error statuses some operation answers, whose named responses the document carries. */
  private readonly clientErrors = new Set<string>();

  constructor(private readonly info: { title: string; version: string }) {}

  /**
   * Names a schema under `components.schemas`: what a route describes in words only (the events
   * of a stream), or shares with others. A response declaring this very object refers to it.
   */
  component(name: string, schema: Json): void {
    this.schemas[name] = schema;
    this.named.set(schema, { $ref: `#/components/schemas/${name}` });
  }

  add(route: RouteOptions): void {
    const schema = (route.schema ?? {}) as Json;
    if (schema.hide === true) return;
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toLowerCase());
    for (const method of methods) {
      if (method === 'head') continue;
      const op = operation(schema, method, this.named);
      for (const code of Object.keys(op.responses as Json)) if (isClientError(code)) this.clientErrors.add(code);
      (this.paths[path] ??= {})[method] = op;
    }
  }

  document(): OpenApiDocument {
    return {
      openapi: '3.1.0',
      info: { ...this.info, license: LICENSE },
      servers: [{ url: '/' }],
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
        schemas: this.schemas,
        responses: clientErrorResponses(this.clientErrors),
      },
      paths: this.paths,
    };
  }
}

function operation(schema: Json, method: string, named: ReadonlyMap<unknown, Json>): Json {
  const op: Json = {};
  for (const key of ['summary', 'description', 'tags', 'operationId', 'security']) if (schema[key] !== undefined) op[key] = schema[key];
  const parameters = [
    ...objectParameters(schema.params as Json | undefined, 'path'),
    ...objectParameters(schema.querystring as Json | undefined, 'query'),
    ...objectParameters(schema.headers as Json | undefined, 'header'),
  ];
  if (parameters.length > 0) op.parameters = parameters;
  if (schema.body) {
    // A body whose fields are all optional may be omitted altogether (e.g. POST /sessions).
    const required = Array.isArray((schema.body as Json).required) && ((schema.body as Json).required as unknown[]).length > 0;
    op.requestBody = { required, content: { 'application/json': { schema: schema.body } } };
  }
  const responses: Json = {};
  for (const [code, body] of Object.entries((schema.response ?? {}) as Json)) {
    const declared = body as Json;
    const description = (declared.description as string | undefined) ?? describe(code);
    const content = declared.content as Json | undefined;
    // A 204 has no body, whatever schema Fastify was given for it.
    if (code === '204') responses[code] = { description };
    else if (body === errorSchema && isClientError(code)) responses[code] = clientErrorRef(code);
    else if (content) responses[code] = { description, content: namedContent(content, named) };
    else responses[code] = { description: describe(code), content: { 'application/json': { schema: named.get(body) ?? body } } };
  }
  if (Object.keys(responses).length === 0) responses['200'] = { description: 'OK' };
  for (const code of pipelineErrors(schema, method)) responses[code] ??= clientErrorRef(code);
  // Status keys are integer-like, so they list in ascending order whatever order they were added in.
  responses.default = { description: 'Error: the envelope, with its catalogue code', content: { 'application/json': { schema: ERROR_REF } } };
  op.responses = responses;
  return op;
}

/** The client errors the pipeline and Fastify answer for this route before or around its handler. */
function pipelineErrors(schema: Json, method: string): string[] {
  const codes = ['401', '429'];
  // A state change the session cookie authenticated needs its CSRF token; the public routes never consult the cookie.
  const isPublic = Array.isArray(schema.security) && schema.security.length === 0;
  if (UNSAFE_METHODS.has(method.toUpperCase()) && !isPublic) codes.push('403');
  if (schema.params || schema.querystring || schema.headers || schema.body) codes.push('400');
  if (schema.body) codes.push('413', '415');
  return codes;
}

/** A response's media types, each schema the document names referred to by name. */
function namedContent(content: Json, named: ReadonlyMap<unknown, Json>): Json {
  return Object.fromEntries(Object.entries(content).map(([type, media]) => {
    const { schema, ...rest } = media as Json;
    return [type, { ...rest, schema: named.get(schema) ?? schema }];
  }));
}

function objectParameters(schema: Json | undefined, where: 'path' | 'query' | 'header'): Json[] {
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
    '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No Content',
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
