/** Schemas of the approvals routes (issue 16: approvals as a resource). */

export const approvalSchema = {
  type: 'object',
  required: ['id', 'run_id', 'session_id', 'kind', 'request', 'request_hash', 'scope', 'grant_stage', 'grant_rule', 'session_grant_allowed',
    'grant_run_id', 'grant_ended_at', 'state', 'decision', 'decided_by', 'created_at', 'expires_at', 'decided_at'],
  properties: {
    id: { type: 'string' },
    run_id: { type: ['string', 'null'], description: 'the run that waits; null for a synchronous chat' },
    session_id: { type: 'string' },
    kind: { type: 'string', enum: ['network', 'tool'] },
    request: { type: 'string', description: 'the exact request: method and URL (query values included, a password in it as ***), or tool name and canonical JSON arguments; values over 2,000 characters folded with their length, the whole over 64 KiB cut with a marker; the service\'s own secrets shown as [MASKED: <where>]' },
    request_hash: { type: 'string', description: 'HMAC-SHA256 (hex) of the exact request under the installation\'s key (approval_hash_key); a decision applies to this request only' },
    scope: {
      type: 'string',
      description: 'what allow_session would cover, with grant_stage: the origin (scheme://host:port, e.g. https://b.localhost:18111) of a network request, the exact tool name of a tool call',
    },
    grant_stage: {
      type: 'string', enum: ['host', 'rest', 'tool'],
      description: 'the policy stage the approval overrides: host (the host is not allowed), rest (an explicit REST deny rule), tool (tools.require_approval)',
    },
    grant_rule: { type: ['string', 'null'], description: 'the config rule the approval overrides (network.rest_policies[i]), when one refused it' },
    session_grant_allowed: {
      type: 'boolean',
      description: 'false when only allow_once is offered: an explicit REST deny rule is never overridden for a session (allow_session is then 409 AGENTD_SESSION_GRANT_REFUSED)',
    },
    grant_run_id: { type: ['string', 'null'], description: 'on a channel session (webhook:…, job:…): the run an allow_session grant is limited to' },
    grant_ended_at: { type: ['string', 'null'], description: 'when the allow_session grant stopped counting (its API session was deleted)' },
    state: { type: 'string', enum: ['pending', 'allowed', 'denied'] },
    decision: { type: ['string', 'null'], enum: ['allow_once', 'allow_session', 'deny', 'timeout', 'interrupted', 'withdrawn', null] },
    decided_by: { type: ['string', 'null'], description: 'api_key, web_session:<id>, or system (timeout, restart, cancelled run)' },
    created_at: { type: 'string' },
    expires_at: { type: 'string', description: 'past it a pending approval is denied (approval_timeout_seconds)' },
    decided_at: { type: ['string', 'null'] },
  },
} as const;

export const approvalListSchema = {
  type: 'object',
  required: ['approvals'],
  properties: { approvals: { type: 'array', items: approvalSchema } },
} as const;

export const decisionBodySchema = {
  type: 'object',
  required: ['decision', 'confirm'],
  additionalProperties: false,
  properties: {
    decision: { type: 'string', enum: ['allow_once', 'allow_session', 'deny'] },
    confirm: { type: 'string', maxLength: 512, description: 'approve:<approval id> to allow, deny:<approval id> to deny' },
  },
} as const;
