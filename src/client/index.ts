/**
 * `agentd/client`: a typed client of the REST API. It loads nothing of the service itself, so
 * any Node program (or bundle) can use it to talk to an agentd over HTTP.
 */
export { AgentdClient, type AgentdClientOptions, type PathsWith, type Payload, type RunEvent, type RunEventsOptions, type RunLiveEvent } from './client.js';
export { AgentdApiError, RunStreamInterruptedError, type ErrorCode } from './errors.js';
export type { components, paths } from './openapi-types.js';
