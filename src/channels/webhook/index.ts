export { WebhookChannel } from './channel.js';
export type { IntakeOutcome, SignatureToRecord, WebhookChannelOptions, WebhookIntake, WebhookMessage } from './types.js';
export type { KeptHeader, WebhookHeaders } from './request-headers.js';
export { computeSignature } from './signature.js';
export { contentDigest, requestIdKey } from './request-ids.js';
export { QUEUE_CAPACITY } from './limits.js';
