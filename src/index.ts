/** The public library surface of agentd. Embedders import only from here. */
export { createApp, type App, type CreateAppOptions } from './app.js';
export { loadConfig, parseConfig, type LoadedConfig } from './config/load.js';
export { ConfigError } from './config/errors.js';
export { configJsonSchema, type Config, type ConfigInput } from './config/schema.js';
export type { AuditEvent, AuditInput, AuditSink } from './storage/ports/audit.js';
export type { AgentRuntime, ChatReply, CostSummary, TurnRequest } from './agent/runtime.js';
export type { RunViewer } from './runs/fan-out.js';
export type { RateDecision, RateLimiter } from './security/rate-limit/rate-limiter.js';
export type { ApiSession } from './storage/ports/sessions.js';
export type { RunCost, RunEvent, RunEventName, RunRecord, RunStatus } from './storage/ports/runs.js';
export type { Scheduler, JobInput, JobRecord, JobState, FireStatus, SkipReason } from './scheduler/index.js';
export { WebhookChannel, computeSignature, type WebhookChannelOptions, type WebhookMessage } from './channels/webhook/index.js';
export {
  createClient,
  Gateway,
  GatewayError,
  InvalidUrlError,
  PolicyViolationError,
  RequestTimeoutError,
  ResponseTooLargeError,
  type GatewayClient,
  type GatewayOptions,
  type GatewayResponse,
  type ClientOptions,
  type RequestOptions,
  type StandaloneClientOptions,
} from './gateway/index.js';
export { NetworkPolicy, InteractiveApproval } from './policy/index.js';
