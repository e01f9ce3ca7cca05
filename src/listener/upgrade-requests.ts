import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Neither listener upgrades a connection (no WebSocket, no h2c): a request asking for one is
 * answered as plain HTTP/1.1, and its connection is closed after the answer. Kept open, the
 * connection is left in a state where Node's parser no longer reports a malformed request that
 * follows on it, so that request would wait for an answer until the client gave up.
 */
export function closeAfterUpgradeRequest(req: IncomingMessage, res: ServerResponse): void {
  if (req.headers.upgrade !== undefined) res.setHeader('connection', 'close');
}
