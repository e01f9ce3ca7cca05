import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { isSelfHosted } from './endpoints.js';
import { estimateCompletionTokens, estimatePromptTokens } from './estimate.js';
import { HostedProvider, type HostedProviderOptions, type SendContext } from './hosted.js';
import type { ChatMessage, CompletionRequest, CompletionResult, ToolCall, ToolSpec } from './types.js';

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

function parseArguments(raw: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // Malformed arguments become an empty object: the tool registry then answers with the missing
    // field, which lets the model retry instead of failing the whole run.
    return {};
  }
}

/** The first choice in our shape; usage is estimated only when a compatible server omits it. */
export function fromOpenAICompletion(completion: ChatCompletion, sent: ChatMessage[]): CompletionResult {
  const message = completion.choices?.[0]?.message;
  const text = message?.content ?? '';
  const toolCalls: ToolCall[] = [];
  for (const call of message?.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    toolCalls.push({ id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments) });
  }
  const usage = completion.usage;
  return {
    text,
    toolCalls,
    model: completion.model,
    usage: usage
      ? { prompt_tokens: usage.prompt_tokens ?? 0, completion_tokens: usage.completion_tokens ?? 0 }
      : { prompt_tokens: estimatePromptTokens(sent), completion_tokens: estimateCompletionTokens(text, toolCalls) },
  };
}

/**
 * OpenAI through the official SDK; with `base_url` also any OpenAI-compatible server (Ollama, vLLM,
 * llama.cpp). The gateway's fetch carries every request, so network policy governs them all.
 */
export class OpenAIProvider extends HostedProvider<ChatCompletionCreateParamsNonStreaming> {
  constructor(options: HostedProviderOptions) {
    super('openai', options);
  }

  /**
   * `max_completion_tokens` is the API's cap on the answer (reasoning included); a self-hosted server
   * (Ollama, llama.cpp, older vLLM) may know only the older `max_tokens`, so it gets both, equal.
   */
  protected build(request: CompletionRequest): ChatCompletionCreateParamsNonStreaming {
    return {
      model: this.model,
      messages: toOpenAIMessages(request.messages),
      ...(request.tools.length ? { tools: toOpenAITools(request.tools) } : {}),
      max_completion_tokens: this.maxTokens,
      ...(isSelfHosted(this.name, this.options.config) ? { max_tokens: this.maxTokens } : {}),
    };
  }

  protected async send(body: ChatCompletionCreateParamsNonStreaming, request: CompletionRequest, context: SendContext): Promise<CompletionResult> {
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
    return fromOpenAICompletion(await client.chat.completions.create(body, { signal: request.signal }), request.messages);
  }
}
