import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, ContentBlockParam, MessageCreateParamsNonStreaming, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { ProviderRequestError } from './errors.js';
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

/** The reply in our shape: text blocks joined, `tool_use` blocks as tool calls, other blocks (thinking) dropped. */
export function fromAnthropicMessage(message: Anthropic.Message): CompletionResult {
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of message.content ?? []) {
    if (block.type === 'text') text.push(block.text);
    else if (block.type === 'tool_use') {
      const input = block.input;
      toolCalls.push({
        id: block.id,
        name: block.name,
        arguments: input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {},
      });
    }
  }
  const usage = message.usage;
  return {
    text: text.join(''),
    toolCalls,
    model: message.model,
    usage: {
      // Cached input is still input the model read; counting it keeps the token totals honest.
      prompt_tokens: (usage?.input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0),
      completion_tokens: usage?.output_tokens ?? 0,
    },
  };
}

/** Claude through the official SDK, with the gateway's fetch so network policy governs every call. */
export class AnthropicProvider extends HostedProvider<MessageCreateParamsNonStreaming> {
  constructor(options: HostedProviderOptions) {
    super('anthropic', options);
  }

  protected build(request: CompletionRequest): MessageCreateParamsNonStreaming {
    const { system, messages } = toAnthropicMessages(request.messages);
    if (messages.length === 0) throw new ProviderRequestError(this.name, 'invalid_request', `provider '${this.name}' needs at least one user message`);
    return {
      model: this.model,
      max_tokens: this.maxTokens,
      messages,
      ...(system ? { system } : {}),
      ...(request.tools.length ? { tools: toAnthropicTools(request.tools) } : {}),
    };
  }

  protected async send(body: MessageCreateParamsNonStreaming, request: CompletionRequest, context: SendContext): Promise<CompletionResult> {
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
    return fromAnthropicMessage(await client.messages.create(body, { signal: request.signal }));
  }
}
