import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * Fastify's route compilers, with each schema compiled when a request first needs it instead of
 * all at start: the API declares hundreds of request and response schemas, and compiling them up
 * front was most of the service's start-up time. The compilers are the ones Fastify uses by
 * default (Ajv with the server's `ajv` options, fast-json-stringify); only the moment changes.
 * With a compiler of its own Fastify no longer lower-cases the names in a `headers` schema:
 * route schemas name headers in lower case, as Node hands them over.
 */
export function lazyCompilers(): CompilersFactory {
  const buildValidator = AjvCompiler();
  const buildSerializer = SerializerSelector();
  return {
    buildValidator: (...factoryArgs: Parameters<typeof buildValidator>) => {
      const compile = buildValidator(...factoryArgs) as (route: unknown) => Validate;
      return (route: unknown) => {
        let validate: Validate | undefined;
        const lazy: Validate = (data, context) => {
          validate ??= compile(route);
          const valid = validate(data, context);
          lazy.errors = validate.errors;
          return valid;
        };
        // An Ajv validator is handed the request as parent data (a default may replace a missing part); Fastify asks this to know.
        lazy.schemaEnv = true;
        return lazy;
      };
    },
    buildSerializer: (externalSchemas, options) => {
      const compile = buildSerializer(externalSchemas, options);
      return (route) => {
        let serialize: ((doc: unknown) => string) | undefined;
        return (doc: unknown) => (serialize ??= compile(route))(doc);
      };
    },
    // Fastify's types give the validator factory Ajv's own compile signature; Fastify calls it with the route's definition, as above.
  } as CompilersFactory;
}
