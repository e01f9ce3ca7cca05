/** The outbound gateway: the only way this service reaches the network. */
export { createClient, type ClientOptions, type FetchFunction, type GatewayClient } from './client.js';
export { GatewayError, InvalidUrlError, PolicyViolationError, ResponseTooLargeError, type PolicyStage } from './errors.js';
export { endGatewaySession, installGateway, uninstallGateway, type GatewaySetup, type Logger } from './install.js';
export { ALLOWED_OPTIONS, type HeadersInput, type RequestBody, type RequestOptions } from './options.js';
export { GatewayResponse } from './response.js';
export { MAX_URL_LENGTH, type Query } from './url.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './body.js';
