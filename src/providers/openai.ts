import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { isSelfHosted } from './endpoints.js';
import { estimateCompletionTokens, estimatePromptTokens } from './estimate.js';
import { parseToolArguments } from './tool-arguments.js';
import { HostedProvider, type HostedProviderOptions, type SendContext } from './hosted.js';
import type { ChatMessage, CompletionRequest, CompletionResult, ToolCall, ToolSpec } from './types.js';
import { readEventStream } from '../util/event-stream.js';

/**
 * Our conversation in the Chat Completions shape. The `tool` role has no error flag, so a failed
 * tool's text is prefixed with "Error: " for the model to see.
 */
export function toOpenAIMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return { role: 'user', content: m.content };
      case 'assistant':
        return m.toolCalls?.length
          ? {
              role: 'assistant',
              content: m.content || null,
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            }
          : { role: 'assistant', content: m.content };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, content: m.isError ? `Error: ${m.content}` : m.content };
    }
  });
}

export function toOpenAITools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.schema },
  }));
}

/** A tool call as its fragments arrive: the id and name in the first, the arguments in pieces. */
interface CallFragments {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reads a Chat Completions stream into our shape: text deltas are handed to `onText` as they come
 * and joined; tool calls are assembled from their fragments by index and returned whole. Usage is
 * the last chunk's (`stream_options.include_usage`), estimated only when a compatible server omits it.
 */
export async function fromOpenAIStream(
  stream: AsyncIterable<ChatCompletionChunk>,
  sent: ChatMessage[],
  onText: ((delta: string) => void) | undefined,
): Promise<CompletionResult> {
  let text = '';
  let model = '';
  let usage: ChatCompletionChunk['usage'] = null;
  const calls = new Map<number, CallFragments>();
  for await (const chunk of stream) {
    if (chunk.model) model = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) continue;
    if (delta.content) {
      text += delta.content;
      onText?.(delta.content);
    }
    for (const fragment of delta.tool_calls ?? []) {
      const call = calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name += fragment.function.name;
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
      calls.set(fragment.index, call);
    }
  }
  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ id: call.id, name: call.name, arguments: parseToolArguments(call.arguments) }));
  return {
    text,
    toolCalls,
    model,
    usage: usage
      ? { prompt_tokens: usage.prompt_tokens ?? 0, completion_tokens: usage.completion_tokens ?? 0 }
      : { prompt_tokens: estimatePromptTokens(sent), completion_tokens: estimateCompletionTokens(text, toolCalls) },
  };
}

/**
 * The chunks of a Chat Completions stream, read with our own event parser: the SDK's decoder
 * searches everything buffered again on each network chunk, which takes seconds for an answer a
 * compatible server sends as one event of a few MiB (docs/gateway.md#provider-streams). As with
 * the SDK, an `error` object in the stream fails the call, and what follows `[DONE]` is read but not used.
 */
export async function* chatCompletionChunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<ChatCompletionChunk> {
  if (!body) throw new Error('the streamed answer has no body');
  let done = false;
  for await (const { data } of readEventStream(body)) {
    if (done) continue;
    if (data.startsWith('[DONE]')) {
      done = true;
      continue;
    }
    let chunk: ChatCompletionChunk & { error?: { message?: unknown } };
    try {
      chunk = JSON.parse(data);
    } catch {
      // The event's text is not repeated: it may hold anything.
      throw new Error(`a streamed event is not JSON (${data.length} characters)`);
    }
    if (chunk.error) throw new Error(typeof chunk.error.message === 'string' ? chunk.error.message : 'the stream reported an error');
    yield chunk;
  }
}

/**
 * OpenAI through the official SDK; with `base_url` also any OpenAI-compatible server (Ollama, vLLM,
 * llama.cpp). The gateway's fetch carries every request, so network policy governs them all.
 */
export class OpenAIProvider extends HostedProvider<ChatCompletionCreateParamsStreaming> {
  constructor(options: HostedProviderOptions) {
    super('openai', options);
  }

  /**
   * `max_completion_tokens` is the API's cap on the answer (reasoning included); a self-hosted server
   * (Ollama, llama.cpp, older vLLM) may know only the older `max_tokens`, so it gets both, equal.
   * The answer is streamed, with the usage in the last chunk; the bound counts these fields too.
   */
  protected build(request: CompletionRequest): ChatCompletionCreateParamsStreaming {
    return {
      model: this.model,
      messages: toOpenAIMessages(request.messages),
      ...(request.tools.length ? { tools: toOpenAITools(request.tools) } : {}),
      max_completion_tokens: this.maxTokens,
      ...(isSelfHosted(this.name, this.options.config) ? { max_tokens: this.maxTokens } : {}),
      stream: true,
      stream_options: { include_usage: true },
    };
  }

  protected async send(body: ChatCompletionCreateParamsStreaming, request: CompletionRequest, context: SendContext): Promise<CompletionResult> {
    // The SDK is loaded at the first call: a service on the offline provider never pays for it at start.
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({
      apiKey: context.apiKey,
      baseURL: context.baseURL,
      fetch: context.fetch,
      // Explicit nulls keep OPENAI_ADMIN_KEY, OPENAI_ORG_ID and OPENAI_PROJECT_ID from the environment out of our requests.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      // One attempt: a retry loop inside the SDK would hide policy denials and multiply spend.
      maxRetries: 0,
      timeout: context.timeoutMs,
      logLevel: 'warn',
      ...(context.logger ? { logger: context.logger } : {}),
    });
    // The SDK posts the request and turns an error status into its error; the body is ours to read.
    const response = await client.chat.completions.create(body, { signal: request.signal }).asResponse();
    return fromOpenAIStream(chatCompletionChunks(response.body), request.messages, request.onText);
  }
}
