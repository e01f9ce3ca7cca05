import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { pinoFor, type Logger } from '../log.js';
import { SECURITY_HEADERS } from '../security/headers.js';
import { answerAndClose, rawErrorResponse } from '../security/raw-error.js';
import { errorBody } from './envelope.js';
import { ApiError, GENERIC_500, methodNotAllowed, notFound, unsupportedMediaType } from './errors.js';
import { OpenApiCollector } from './openapi.js';
import { installPipeline, pathOf, type PipelineOptions } from './pipeline.js';
import { installRequestContext, REQUEST_ID_HEADER, RequestLog, requestIdOf } from './request-id.js';
import { RouteTable } from './route-table.js';

export const MAX_BODY_BYTES = 1024 * 1024;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route accepts `application/x-www-form-urlencoded` bodies (the login form). */
    formBody?: boolean;
  }
}

export interface HttpServerOptions extends PipelineOptions {
  log: Logger;
  version: string;
  /** How long a client may take to send a whole request (slow-loris guard). */
  requestTimeoutMs?: number;
}

export interface HttpServer {
  app: FastifyInstance;
  openapi: OpenApiCollector;
}

/**
 * The Fastify instance with the pipeline, the envelope error handler, 404/405 handling and the
 * client-error handler. Routes are registered by the caller afterwards.
 */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const { log } = options;
  const app = Fastify({
    // The service's own pino instance: request lines and the service's lines share one format.
    // One line per answered request (RequestLog); the per-request child logger is skipped, the
    // request id reaches lines through the request context.
    loggerInstance: pinoFor(log) as FastifyBaseLogger,
    logController: new RequestLog(),
    childLoggerFactory: (logger) => logger,
    genReqId: requestIdOf,
    bodyLimit: MAX_BODY_BYTES,
    // Node checks request deadlines on a timer (30 s by default); checking every second makes
    // the slow-client deadline hold to about a second.
    serverFactory: (handler) => {
      const server = createServer(
        // Without requireHostHeader Node answers a Host-less HTTP/1.1 request with a bare 400 of its
        // own (no headers, no envelope); nothing here routes by Host.
        { requestTimeout: options.requestTimeoutMs ?? 30_000, connectionsCheckingInterval: 1000, requireHostHeader: false },
        handler,
      );
      // Node hands CONNECT to a 'connect' listener and drops the socket when there is none.
      server.on('connect', (_request, socket: Socket) => answerAndClose(socket, rawErrorResponse(405, 'Method not allowed')));
      return server;
    },
    // Idle keep-alive sockets are closed on shutdown so `close()` never hangs on a browser tab;
    // requests still being answered (a chat the runtime has just aborted) finish first.
    forceCloseConnections: 'idle',
    // Ids up to 256 characters are validated by the route schemas (404/400 after authentication);
    // the router's default of 100 would refuse longer ones before the pipeline ran.
    routerOptions: { maxParamLength: 512 },
    return503OnClosing: true,
    clientErrorHandler: clientErrorHandler(log),
    // Errors Fastify raises before routing (a URL that does not percent-decode) skip the hooks,
    // so the headers and the envelope are added here.
    frameworkErrors: (error, request, reply) => {
      reply.headers(SECURITY_HEADERS).header(REQUEST_ID_HEADER, request.id);
      sendError(reply, new ApiError(400, error.code === 'FST_ERR_BAD_URL' ? 'Invalid URL encoding' : 'Bad request'));
    },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
  });
  const routes = new RouteTable();
  const openapi = new OpenApiCollector({ title: 'agentd', version: options.version });
  app.addHook('onRoute', (route) => {
    routes.add(route);
    openapi.add(route);
  });

  installJsonParser(app);
  installFormParser(app);
  installRequestContext(app);
  installPipeline(app, options);

  app.setNotFoundHandler((request, reply) => {
    const allowed = routes.allowedMethods(pathOf(request));
    sendError(reply, allowed.length > 0 ? methodNotAllowed(allowed) : notFound());
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) return sendError(reply, error);
    if ((error as FastifyError).validation) {
      const context = (error as FastifyError).validationContext ?? 'body';
      return sendError(reply, new ApiError(400, `${context}: ${describeValidation(error as FastifyError)}`));
    }
    const status = (error as FastifyError).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, new ApiError(status, clientErrorMessage(error as FastifyError)));
    }
    log.error(`unhandled error on ${request.method} ${pathOf(request)}: ${error.stack ?? error.message}`);
    return sendError(reply, new ApiError(500, GENERIC_500));
  });

  return { app, openapi };
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.code(error.statusCode).headers(error.headers).type('application/json; charset=utf-8');
  return reply.send(errorBody(error.message));
}

function describeValidation(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const field = first.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : '';
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  const prefix = field ? `${field}.` : '';
  if (params.missingProperty) return `field "${prefix}${params.missingProperty}" is required`;
  if (params.additionalProperty) return `field "${prefix}${params.additionalProperty}" is not allowed`;
  return field ? `field "${field}" ${first.message ?? 'is invalid'}` : (first.message ?? 'is invalid');
}

/** Fastify's own 4xx errors, reworded for API clients. */
function clientErrorMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body too large (limit 1 MiB)';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Request body size did not match Content-Length';
    default:
      return error.message;
  }
}

/**
 * JSON bodies are decoded strictly: invalid UTF-8 is a 400, not silently replaced characters; an
 * empty body is "no body" (a POST whose fields are all optional may omit it); a non-object top
 * level value is left for the route schema to refuse with a message naming the body.
 */
function installJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
    if (body.length === 0) return done(null, undefined);
    let text: string;
    try {
      text = decoder.decode(body);
    } catch {
      return done(new ApiError(400, 'Request body is not valid UTF-8'), undefined);
    }
    let value: unknown;
    try {
      // The reviver (slower) runs only when a dangerous key could be present at all.
      value = DANGEROUS_KEY_HINT.test(text) ? JSON.parse(text, refuseDangerousKeys) : JSON.parse(text);
    } catch (error) {
      return done(error instanceof ApiError ? error : new ApiError(400, 'Request body is not valid JSON'), undefined);
    }
    done(null, value);
  });
}

const DANGEROUS_KEY_HINT = /__proto__|constructor/;

/**
 * `__proto__` keys, and `constructor` objects carrying a `prototype`, are refused: handlers spread
 * and merge bodies, and such keys are how prototype pollution gets in.
 */
function refuseDangerousKeys(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && 'prototype' in value)) {
    throw new ApiError(400, `field "${key}" is not allowed`);
  }
  return value;
}

/**
 * HTML form bodies, for the routes that opt in with `config: { formBody: true }` (the login form);
 * every other route keeps answering 415, so the JSON API's surface does not grow. Decoding is as
 * strict as for JSON: invalid UTF-8 or percent-encoding and a repeated field are a 400. Yields a
 * plain object of strings (built with `Object.fromEntries`, so `__proto__` is just a field).
 */
function installFormParser(app: FastifyInstance): void {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    if (request.routeOptions.config?.formBody !== true) return done(unsupportedMediaType(), undefined);
    let text: string;
    try {
      text = decoder.decode(body);
    } catch {
      return done(new ApiError(400, 'Request body is not valid UTF-8'), undefined);
    }
    const fields = new Map<string, string>();
    for (const pair of text === '' ? [] : text.split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      let name: string;
      let value: string;
      try {
        name = decodeURIComponent((eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
        value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '));
      } catch {
        return done(new ApiError(400, 'Request body is not valid form encoding'), undefined);
      }
      if (fields.has(name)) return done(new ApiError(400, `field "${name.slice(0, 64)}" is repeated`), undefined);
      fields.set(name, value);
    }
    done(null, Object.fromEntries(fields));
  });
}

/** Malformed HTTP and request timeouts still get an envelope with the security headers. */
function clientErrorHandler(log: Logger) {
  return function onClientError(error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') answerAndClose(socket, rawErrorResponse(408, 'Request timed out'));
    else if (error.code === 'HPE_HEADER_OVERFLOW') answerAndClose(socket, rawErrorResponse(431, 'Request headers too large'));
    else answerAndClose(socket, rawErrorResponse(400, 'Malformed HTTP request'));
    log.warn(`client error: ${error.code ?? error.message}`);
  };
}


export type { FastifyInstance, FastifyRequest, FastifyReply };
