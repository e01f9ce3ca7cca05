/** The outbound gateway: the only way this service reaches the network. */
export { type ClientOptions, type FetchFunction, type GatewayClient } from './client.js';
export { GatewayError, InvalidUrlError, PolicyViolationError, RequestTimeoutError, ResponseTooLargeError, type PolicyStage } from './errors.js';
export { createClient, Gateway, type GatewayOptions, type StandaloneClientOptions } from './gateway.js';
export { ALLOWED_OPTIONS, type HeadersInput, type RequestBody, type RequestOptions } from './options.js';
export { MAX_CONNECTIONS, MAX_IDLE_CONNECTIONS, type PoolLimits, type PoolStats } from './pool.js';
export { GatewayResponse } from './response.js';
export { MAX_URL_LENGTH, type Query } from './url.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './body.js';
// Types only (`export type`): the bundle then does not read websocket.ts, and undici with it, at start-up.
export type { GatewaySocket, WebSocketOptions } from './websocket.js';
