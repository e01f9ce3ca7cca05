import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';

/** Where the client's types live, from the package root. */
export const OPENAPI_TYPES_FILE = 'src/client/openapi-types.ts';

const HEADER = `/**
 * The REST API's types, generated from its OpenAPI document (GET /api/v1/openapi.json) by
 * \`npm run client:types\`. Do not edit: test/client-types.test.ts fails when this file and the
 * document differ.
 */

`;

/** The TypeScript types of an OpenAPI document, as \`npm run client:types\` writes them. */
export async function renderOpenApiTypes(document: object): Promise<string> {
  const ast = await openapiTS(document as OpenAPI3, { silent: true });
  return HEADER + astToString(ast);
}
