import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { ProviderRequestError } from './errors.js';
import { parseToolArguments } from './tool-arguments.js';
import { HostedProvider, type HostedProviderOptions, type SendContext } from './hosted.js';
import type { ChatMessage, CompletionRequest, CompletionResult, ToolCall, ToolSpec } from './types.js';

/**
 * Our conversation in the Messages API's shape. System messages go to `system`; tool results become
 * `tool_result` blocks in a user turn; consecutive turns of one role are merged, because the API
 * wants every result of one assistant turn in the single user turn that follows it.
 */
export function toAnthropicMessages(messages: ChatMessage[]): { system: string | undefined; messages: MessageParam[] } {
  const system: string[] = [];
  const out: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        if (m.content) system.push(m.content);
        break;
      case 'user':
        // The API refuses empty text blocks.
        if (m.content) push('user', [{ type: 'text', text: m.content }]);
        break;
      case 'assistant':
        push('assistant', [
          ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.arguments })),
        ]);
        break;
      case 'tool':
        push('user', [
          { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) },
        ]);
        break;
    }
  }
  return { system: system.length ? system.join('\n\n') : undefined, messages: out };
}

export function toAnthropicTools(tools: ToolSpec[]): Tool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.schema } as Tool['input_schema'],
  }));
}

/** A content block as its deltas arrive; other blocks (thinking) are skipped. */
type BlockInProgress = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; json: string };

/**
 * Reads a Messages stream into our shape: `text_delta`s are handed to `onText` as they come and
 * joined, `tool_use` blocks are assembled from their `input_json_delta` pieces and returned whole.
 * Usage: the input counts from `message_start`, the output count from the last `message_delta`
 * (cumulative), either overridden by a later event that reports it.
 */
export async function fromAnthropicStream(stream: AsyncIterable<RawMessageStreamEvent>, onText: ((delta: string) => void) | undefined): Promise<CompletionResult> {
  const blocks = new Map<number, BlockInProgress>();
  let model = '';
  const usage = { input: 0, cacheCreation: 0, cacheRead: 0, output: 0 };
  for await (const event of stream) {
    switch (event.type) {
      case 'message_start': {
        model = event.message.model;
        const u = event.message.usage;
        usage.input = u?.input_tokens ?? 0;
        usage.cacheCreation = u?.cache_creation_input_tokens ?? 0;
        usage.cacheRead = u?.cache_read_input_tokens ?? 0;
        usage.output = u?.output_tokens ?? 0;
        break;
      }
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') {
          blocks.set(event.index, { type: 'text', text: block.text });
          if (block.text) onText?.(block.text);
        } else if (block.type === 'tool_use') {
          blocks.set(event.index, { type: 'tool_use', id: block.id, name: block.name, json: '' });
        }
        break;
      }
      case 'content_block_delta': {
        const block = blocks.get(event.index);
        if (event.delta.type === 'text_delta' && block?.type === 'text') {
          block.text += event.delta.text;
          onText?.(event.delta.text);
        } else if (event.delta.type === 'input_json_delta' && block?.type === 'tool_use') {
          block.json += event.delta.partial_json;
        }
        break;
      }
      case 'message_delta': {
        const u = event.usage;
        if (u.output_tokens != null) usage.output = u.output_tokens;
        if (u.input_tokens != null) usage.input = u.input_tokens;
        if (u.cache_creation_input_tokens != null) usage.cacheCreation = u.cache_creation_input_tokens;
        if (u.cache_read_input_tokens != null) usage.cacheRead = u.cache_read_input_tokens;
        break;
      }
      default:
        break;
    }
  }
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const [, block] of [...blocks.entries()].sort(([a], [b]) => a - b)) {
    if (block.type === 'text') text.push(block.text);
    else toolCalls.push({ id: block.id, name: block.name, arguments: parseToolArguments(block.json) });
  }
  return {
    text: text.join(''),
    toolCalls,
    model,
    usage: {
      // Cached input is still input the model read; counting it keeps the token totals honest.
      prompt_tokens: usage.input + usage.cacheCreation + usage.cacheRead,
      completion_tokens: usage.output,
    },
  };
}

/** Claude through the official SDK, with the gateway's fetch so network policy governs every call. */
export class AnthropicProvider extends HostedProvider<MessageCreateParamsStreaming> {
  constructor(options: HostedProviderOptions) {
    super('anthropic', options);
  }

  protected build(request: CompletionRequest): MessageCreateParamsStreaming {
    const { system, messages } = toAnthropicMessages(request.messages);
    if (messages.length === 0) throw new ProviderRequestError(this.name, 'invalid_request', `provider '${this.name}' needs at least one user message`);
    return {
      model: this.model,
      max_tokens: this.maxTokens,
      messages,
      ...(system ? { system } : {}),
      ...(request.tools.length ? { tools: toAnthropicTools(request.tools) } : {}),
      // Streamed: text reaches viewers as it is written; the bound counts this field too.
      stream: true,
    };
  }

  protected async send(body: MessageCreateParamsStreaming, request: CompletionRequest, context: SendContext): Promise<CompletionResult> {
    // The SDK is loaded at the first call: a service on the offline provider never pays for it at start.
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    const client = new Anthropic({
      apiKey: context.apiKey,
      baseURL: context.baseURL,
      fetch: context.fetch,
      // One attempt: a retry loop inside the SDK would hide policy denials and multiply spend.
      maxRetries: 0,
      timeout: context.timeoutMs,
      // Explicit, so an ANTHROPIC_LOG=debug in the environment cannot print request headers.
      logLevel: 'warn',
      ...(context.logger ? { logger: context.logger } : {}),
    });
    const stream = await client.messages.create(body, { signal: request.signal });
    return fromAnthropicStream(stream, request.onText);
  }
}
