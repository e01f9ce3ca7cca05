import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import { pinoFor, type Logger } from '../log.js';
import { answerAndClose, answeredAndClosing, rawErrorResponse, refusedHead, type ParserError } from '../listener/raw-error.js';
import { clientAskedToClose, drainBeforeClosing } from '../listener/drain-body.js';
import { closeAfterUpgradeRequest } from '../listener/upgrade-requests.js';
import { errorBody } from '../listener/envelope.js';
import { asApiError } from './error-mapping.js';
import { sendErrorPage, wantsErrorPage } from './error-page.js';
import { ApiError, badRequest, internalError, invalidField, methodNotAllowed, notFound, unsupportedMediaType } from '../listener/errors.js';
import { lazyCompilers } from './lazy-compilers.js';
import { OpenApiCollector } from './openapi.js';
import { createPipeline, HEALTHZ_PATH, pathOf, UNMET_EXPECTATION, type Pipeline, type PipelineOptions } from './pipeline.js';
import { RequestLog, requestIdOf } from './request-id.js';
import { RouteTable } from './route-table.js';
import { FixedAnswers } from './fixed-answers.js';
import { NUL_REFUSED, nulField } from '../security/input/nul.js';

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
  /** For routes that authenticate themselves and count their own attempts (the login form). */
  countAttempt: Pipeline['countAttempt'];
}

/**
 * The Fastify instance with the pipeline, the envelope error handler, 404/405 handling and the
 * client-error handler. Routes are registered by the caller afterwards.
 */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const { log } = options;
  const pipeline = createPipeline(options);
  const requestLog = pinoFor(log);
  const fixedAnswers = new FixedAnswers(pipeline, requestLog, options.metrics?.http);
  // A person in a browser gets a page, a program the envelope (docs/api.md#error-pages).
  const answerError = (reply: FastifyReply, error: ApiError): FastifyReply =>
    wantsErrorPage(reply.request) ? sendErrorPage(reply, error, options.apiKey === '') : sendError(reply, error);
  const app = Fastify({
    // The service's own pino instance: request lines and the service's lines share one format.
    // One line per answered request (RequestLog); the per-request child logger is skipped: the
    // lines that concern a request name it themselves.
    loggerInstance: requestLog as FastifyBaseLogger,
    logController: new RequestLog(options.metrics?.http),
    childLoggerFactory: (logger) => logger,
    genReqId: requestIdOf,
    bodyLimit: MAX_BODY_BYTES,
    // Node checks request deadlines on a timer (30 s by default); checking every second makes
    // the slow-client deadline hold to about a second.
    serverFactory: (fastifyHandler) => {
      const handler = (request: IncomingMessage, response: ServerResponse) => {
        // Rare (a connection the client closes, or asks to upgrade): the answer waits until the body is read.
        if (clientAskedToClose(request)) {
          closeAfterUpgradeRequest(request, response);
          drainBeforeClosing(request, response);
        } else if (fixedAnswers.answer(request, response)) {
          return;
        }
        fastifyHandler(request, response);
      };
      const server = createServer(
        // Without requireHostHeader Node answers a Host-less HTTP/1.1 request with a bare 400 of its
        // own (no headers, no envelope); nothing here routes by Host.
        { requestTimeout: options.requestTimeoutMs ?? 30_000, connectionsCheckingInterval: 1000, requireHostHeader: false },
        handler,
      );
      // Without a listener Node answers an `Expect` other than 100-continue with a bare 417 of its
      // own, before the pipeline; marked here, it is refused with the envelope after authentication.
      server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
        (request as IncomingMessage & { [UNMET_EXPECTATION]?: true })[UNMET_EXPECTATION] = true;
        handler(request, response);
      });
      // Node hands CONNECT to a 'connect' listener and drops the socket when there is none.
      server.on('connect', (_request, socket: Socket) => answerAndClose(socket, rawErrorResponse(new ApiError('AGENTD_METHOD_NOT_ALLOWED'))));
      return server;
    },
    // Idle keep-alive sockets are closed on shutdown so `close()` never hangs on a browser tab;
    // requests still being answered (a chat the runtime has just aborted) finish first.
    forceCloseConnections: 'idle',
    // Ids up to 256 characters are validated by the route schemas (404/400 after authentication);
    // the router's default of 100 would refuse longer ones before the pipeline ran.
    routerOptions: { maxParamLength: 512 },
    // Requests arriving while closing are answered 503 by the pipeline (with the envelope).
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(log),
    // Errors Fastify raises before routing (a URL that does not percent-decode) skip the hooks:
    // the pipeline runs here instead, so such a request is rate limited and authenticated first.
    frameworkErrors: (error, request, reply) => {
      const answer = (refusal: ApiError | null) =>
        answerError(reply, refusal ?? badRequest(error.code === 'FST_ERR_BAD_URL' ? 'Invalid URL encoding' : 'Bad request'));
      try {
        const refusal = pipeline.gate(request, reply);
        if (refusal instanceof Promise) refusal.then(answer, (cause: unknown) => answer(unexpected(log, request, cause)));
        else answer(refusal);
      } catch (cause) {
        answer(unexpected(log, request, cause));
      }
    },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    schemaController: { compilersFactory: lazyCompilers() },
  });
  const routes = new RouteTable();
  const openapi = new OpenApiCollector({ title: 'agentd', version: options.version });
  // Routes registered under a prefix arrive here with their full URL.
  app.addHook('onRoute', (route) => {
    routes.add(route);
    fixedAnswers.add(route);
    openapi.add(route);
    allowOmittedBody(route);
  });

  installJsonParser(app);
  installFormParser(app);
  pipeline.install(app);

  // For load balancers and supervisors: no key needed, nothing revealed but liveness.
  const healthzBody = JSON.stringify({ status: 'ok' });
  app.get(HEALTHZ_PATH, {
    schema: {
      summary: 'Liveness without a key',
      operationId: 'probeLiveness',
      description:
        'Needs no API key (a key that is offered must be right) and reveals nothing but liveness; rate limited like ' +
        'every request; 401 when the configured key is empty. /api/v1/health stays authenticated.',
      tags: ['system'],
      security: [],
      response: { 200: { type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } } },
    },
  }, (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(healthzBody);
  });

  app.setNotFoundHandler((request, reply) => {
    const allowed = routes.allowedMethods(pathOf(request));
    answerError(reply, allowed.length > 0 ? methodNotAllowed(allowed) : notFound());
  });

  app.setErrorHandler((error: Error, request, reply) => {
    // Fastify closes the connection after a body it refused (over the limit, unreadable): the rest
    // of it is read first, so a client still uploading reads the refusal instead of a reset.
    if (reply.getHeader('connection') === 'close') drainBeforeClosing(request.raw, reply.raw);
    const known = asApiError(error);
    if (known) return answerError(reply, known);
    return answerError(reply, unexpected(log, request, error));
  });

  return { app, openapi, countAttempt: pipeline.countAttempt };
}

function unexpected(log: Logger, request: FastifyRequest, error: unknown): ApiError {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log.error(`unhandled error on ${request.method} ${pathOf(request)}: ${detail}`, { request_id: request.id });
  return internalError();
}

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.code(error.statusCode).headers(error.headers).type('application/json; charset=utf-8');
  return reply.send(errorBody(error));
}

/**
 * A body schema with no required field may be omitted altogether (as the OpenAPI document says):
 * the absent body is validated, defaulted and typed as `{}`. Fastify would validate it as null.
 */
function allowOmittedBody(route: RouteOptions): void {
  const body = (route.schema as { body?: { required?: unknown[] } } | undefined)?.body;
  if (!body || (Array.isArray(body.required) && body.required.length > 0)) return;
  const substitute = async (request: FastifyRequest): Promise<void> => {
    if (request.body === undefined) request.body = {};
  };
  route.preValidation = [substitute, ...(route.preValidation === undefined ? [] : [route.preValidation].flat())];
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
      return done(badRequest('Request body is not valid UTF-8'), undefined);
    }
    let value: unknown;
    try {
      // The reviver (slower) runs only when a dangerous key could be present at all.
      value = DANGEROUS_KEY_HINT.test(text) ? JSON.parse(text, refuseDangerousKeys) : JSON.parse(text);
    } catch (error) {
      return done(error instanceof ApiError ? error : badRequest('Request body is not valid JSON'), undefined);
    }
    // JSON can only carry NUL escaped, so the walk runs only for bodies that hold the escape.
    const field = text.includes('\\u0000') ? nulField(value) : null;
    if (field !== null) return done(invalidField(`field "${field}" ${NUL_REFUSED}`), undefined);
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
    throw invalidField(`field "${key}" is not allowed`);
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
      return done(badRequest('Request body is not valid UTF-8'), undefined);
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
        return done(badRequest('Request body is not valid form encoding'), undefined);
      }
      if (fields.has(name)) return done(invalidField(`field "${name.slice(0, 64)}" is repeated`), undefined);
      const nul = nulField({ [name]: value });
      if (nul !== null) return done(invalidField(`field "${nul}" ${NUL_REFUSED}`), undefined);
      fields.set(name, value);
    }
    done(null, Object.fromEntries(fields));
  });
}

/** Malformed HTTP and request timeouts still get an envelope with the security headers. */
function clientErrorHandler(log: Logger) {
  return function onClientError(error: Error & { code?: string }, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed || answeredAndClosing(socket)) return;
    const refusal = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? new ApiError('AGENTD_REQUEST_TIMEOUT')
      : error.code === 'HPE_HEADER_OVERFLOW' ? new ApiError('AGENTD_HEADERS_TOO_LARGE')
        : badRequest('Malformed HTTP request');
    answerAndClose(socket, rawErrorResponse(refusal, { head: refusedHead(error as ParserError) }));
    log.warn(`client error: ${error.code ?? error.message}`);
  };
}


export type { FastifyInstance, FastifyRequest, FastifyReply };
