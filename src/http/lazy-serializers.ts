import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's response serializers, each compiled when its route first answers with that status
 * instead of all at start: the API declares hundreds of response schemas, and compiling them
 * up front was most of the service's start-up time. The serializer is the same one Fastify
 * builds by default; a schema's compile cost moves to the first answer that uses it.
 */
export function lazySerializers(): SerializerFactory {
  const buildSerializer = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = buildSerializer(externalSchemas, options);
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc) => (serialize ??= compile(route))(doc);
    };
  };
}
