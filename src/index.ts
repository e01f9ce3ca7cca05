/** The public library surface of agentd. Embedders import only from here. */
export { createApp, type App, type CreateAppOptions } from './app.js';
export { loadConfig, parseConfig, type LoadedConfig } from './config/load.js';
export { ConfigError } from './config/errors.js';
export { configJsonSchema, type Config, type ConfigInput } from './config/schema.js';
export type { AuditEvent, AuditInput, AuditSink } from './audit/types.js';
