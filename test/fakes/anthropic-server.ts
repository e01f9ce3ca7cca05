import type { ServerResponse } from 'node:http';
import { chunks, fakeServerStarter, plannedUsage, roughTokens, sendJsonError, type ReplyContext, type WireFormat } from './fake-llm-server.js';

export type { FakeLlmServer, PlannedReply, RecordedRequest } from './fake-llm-server.js';

/**
 * A fake Anthropic Messages API (`POST /v1/messages`) on 127.0.0.1, JSON or SSE (`stream: true`) in
 * the real wire format. Configure `base_url` as `server.baseUrl` (the origin: the SDK adds /v1).
 */
function sendError(res: ServerResponse, status: number, message: string, type = 'api_error') {
  sendJsonError(res, status, 'request-id', { type: 'error', error: { type, message } });
}

function sse(res: ServerResponse, event: string, data: unknown) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

async function respond({ request, reply, res, n, pause }: ReplyContext): Promise<void> {
  if ('error' in reply) return;
  const body = request.body as { model?: string; stream?: boolean; messages?: unknown; system?: unknown };
  if (!request.headers['anthropic-version']) return sendError(res, 400, 'anthropic-version header is required', 'invalid_request_error');
  const model = reply.model ?? body.model ?? 'claude-fake';
  const toolUses = (reply.toolCalls ?? []).map((c, i) => ({
    type: 'tool_use' as const,
    id: c.id ?? `toolu_fake_${n}_${i}`,
    name: c.name,
    input: c.arguments,
  }));
  const content = [...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []), ...toolUses];
  const stopReason = toolUses.length ? 'tool_use' : 'end_turn';
  const planned = plannedUsage(reply, request);
  const usage = {
    input_tokens: planned?.input ?? roughTokens(JSON.stringify([body.system ?? '', body.messages ?? []])),
    output_tokens: planned?.output ?? roughTokens(JSON.stringify(content)),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const id = `msg_fake_${n}`;

  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage }));
    return;
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  sse(res, 'message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  sse(res, 'ping', { type: 'ping' });
  for (const [index, block] of content.entries()) {
    await pause();
    if (res.destroyed) return;
    if (block.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of chunks(block.text)) {
        await pause();
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
      }
    } else {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const piece of chunks(JSON.stringify(block.input), 12)) {
        await pause();
        sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  }
  await pause();
  if (res.destroyed) return;
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

export const anthropicWireFormat: WireFormat = {
  basePath: '',
  completionPath: '/v1/messages',
  respond,
  respondError: sendError,
  defaultReply: { text: 'Hello from the fake Anthropic server.' },
};

export const startFakeAnthropic = fakeServerStarter(anthropicWireFormat);
