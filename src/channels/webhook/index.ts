export { WebhookChannel } from './channel.js';
export type { WebhookChannelOptions, WebhookMessage } from './types.js';
export type { KeptHeader, WebhookHeaders } from './request-headers.js';
export { computeSignature } from './signature.js';
