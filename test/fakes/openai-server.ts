import type { ServerResponse } from 'node:http';
import { chunks, fakeServerStarter, plannedUsage, roughTokens, sendJsonError, type ReplyContext, type WireFormat } from './fake-llm-server.js';

export type { FakeLlmServer, PlannedReply, RecordedRequest } from './fake-llm-server.js';

/**
 * A fake OpenAI Chat Completions API (`POST /v1/chat/completions`) on 127.0.0.1, JSON or SSE
 * (`stream: true`, `data: {chunk}` … `data: [DONE]`) in the real wire format. Configure `base_url`
 * as `server.baseUrl` (origin + /v1), as for Ollama or vLLM.
 */
function sendError(res: ServerResponse, status: number, message: string, type = 'api_error') {
  sendJsonError(res, status, 'x-request-id', { error: { message, type, param: null, code: type === 'authentication_error' ? 'invalid_api_key' : null } });
}

async function respond({ request, reply, res, n, pause }: ReplyContext): Promise<void> {
  if ('error' in reply) return;
  const body = request.body as { model?: string; stream?: boolean; messages?: unknown; stream_options?: { include_usage?: boolean } };
  const model = reply.model ?? body.model ?? 'gpt-fake';
  const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_fake_${n}_${i}`,
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
  const text = reply.text ?? (toolCalls.length ? null : '');
  const finishReason = toolCalls.length ? 'tool_calls' : 'stop';
  const planned = plannedUsage(reply, request);
  const prompt = planned?.input ?? roughTokens(JSON.stringify(body.messages ?? []));
  const completion = planned?.output ?? roughTokens(JSON.stringify([text, toolCalls]));
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  const id = `chatcmpl-fake-${n}`;
  const created = Math.floor(Date.now() / 1000);

  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
        usage,
      }),
    );
    return;
  }

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: unknown, finish_reason: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason }] })}\n\n`);
  chunk({ role: 'assistant', content: '', refusal: null });
  for (const piece of text ? chunks(text) : []) {
    await pause();
    if (res.destroyed) return;
    chunk({ content: piece });
  }
  for (const [index, call] of toolCalls.entries()) {
    await pause();
    if (res.destroyed) return;
    chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    for (const piece of chunks(call.function.arguments, 12)) {
      await pause();
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  await pause();
  if (res.destroyed) return;
  chunk({}, finishReason);
  if (body.stream_options?.include_usage) {
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
  }
  res.write('data: [DONE]\n\n');
  res.end();
}

export const openaiWireFormat: WireFormat = {
  basePath: '/v1',
  completionPath: '/v1/chat/completions',
  respond,
  respondError: sendError,
  defaultReply: { text: 'Hello from the fake OpenAI server.' },
};

export const startFakeOpenAI = fakeServerStarter(openaiWireFormat);
