/** Network policy, REST rules and interactive approval. */
export { NetworkPolicy, GATEWAY_CATEGORIES, type GatewayCategory } from './network-policy.js';
export { evaluateDestination, systemResolver, type Resolver, type DestinationDecision, type Denial } from './destination.js';
export { InteractiveApproval, type ApprovalOptions, type ApprovalAnswer } from './approval.js';
export type { ApprovalAsk, Approver } from './approver.js';
export { NETWORK_PRESETS } from './presets.js';
export { fnmatch, fnmatchToRegExp } from './fnmatch.js';
export { normalizePath } from './rest-rules.js';
