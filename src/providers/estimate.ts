import type { ChatMessage, ToolCall, Usage } from './types.js';

/** About four characters per token for English text: the usual rule of thumb, used where no tokenizer runs. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function messageText(message: ChatMessage): string {
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return message.content + JSON.stringify(message.toolCalls);
  }
  return message.content;
}

export function estimatePromptTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateTokens(messageText(m)), 0);
}

export function estimateCompletionTokens(text: string, toolCalls: ToolCall[]): number {
  return estimateTokens(text) + (toolCalls.length ? estimateTokens(JSON.stringify(toolCalls)) : 0);
}

/**
 * Tokens a provider may bill for input besides the body's own bytes: the system prompt a vendor
 * adds when tools are sent (Anthropic documents a few hundred tokens for it) and the chat
 * template's turn markers. Each message's markers are a few tokens, fewer than the bytes of its
 * JSON wrapping in the body; the per-message allowance is a margin on top.
 */
export const REQUEST_OVERHEAD_TOKENS = 512;
export const MESSAGE_OVERHEAD_TOKENS = 8;

/**
 * The most a request can be billed for, from the body exactly as it is sent: input tokens at most
 * the body's UTF-8 bytes (the vendors' byte-level BPE tokenizers never make a token of less than
 * one byte, and the body holds every prompt byte — system prompt, tool definitions, messages — plus
 * its JSON syntax) and the overheads above; output tokens at most the `max_tokens` it sends.
 */
export function requestBound(body: unknown, messageCount: number, maxTokens: number): Usage {
  return {
    prompt_tokens: Buffer.byteLength(JSON.stringify(body), 'utf8') + REQUEST_OVERHEAD_TOKENS + MESSAGE_OVERHEAD_TOKENS * messageCount,
    completion_tokens: maxTokens,
  };
}
