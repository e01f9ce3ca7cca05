import type { ChatMessage, ToolCall } from './types.js';

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
