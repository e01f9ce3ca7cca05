/** The webhook channel's fixed limits (docs/webhook.md#limits). */

/** Largest accepted body: 1 MiB; exactly 1,048,576 bytes is still accepted. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Longest accepted prompt, in characters (Unicode code points, so an emoji counts once). */
export const MAX_PROMPT_CHARS = 32_000;
/** Longest kept sender, in characters, before unsafe characters are stripped. */
export const MAX_SENDER_CHARS = 64;
/** Messages waiting for `receive()`; the next valid request gets 503. */
export const QUEUE_CAPACITY = 1000;
/** Client IPs the rate limiter remembers; past this the least recently seen is forgotten. */
export const MAX_TRACKED_CLIENTS = 10_000;
/**
 * Body bytes all requests together may hold while being read: 64 requests of the full 1 MiB, or
 * tens of thousands of typical small ones. Past it a request is answered 503 before its body is read.
 */
export const MAX_BODY_BYTES_IN_FLIGHT = 64 * MAX_BODY_BYTES;
/** How long a client may take to send the body once the headers have arrived. */
export const BODY_TIMEOUT_MS = 10_000;
/** The value of Retry-After on 429: the length of the sliding window (docs/webhook.md#order-of-checks). */
export const RETRY_AFTER_SECONDS = 60;

/** `requireTimestamp`: accepted clock difference between sender and us. */
export const MAX_TIMESTAMP_SKEW_SECONDS = 300;
/**
 * `requireTimestamp`: signatures remembered to refuse replays. Only requests with a valid
 * signature are remembered, so only a holder of the secret can fill it; when it is full of live
 * entries new requests are refused (503) rather than forgetting one that could then be replayed.
 */
export const MAX_REMEMBERED_SIGNATURES = 50_000;

/** `idempotency`: how long a delivered X-Request-Id is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 10 * 60_000;
/** `idempotency`: ids remembered; past this the oldest is forgotten. */
export const MAX_REMEMBERED_REQUEST_IDS = 10_000;
