import type { FastifyRequest } from 'fastify';

/**
 * Who acted, as the audit log names the operator behind a request: `web_session:<id>` when the
 * console's session cookie authenticated it, else `api_key` (the pipeline lets no other request
 * reach an operator action). Approvals record it as `decided_by`; every operator action as `actor`.
 */
export function actorOf(request: FastifyRequest): string {
  return request.webSession !== null ? `web_session:${request.webSession.id}` : 'api_key';
}
