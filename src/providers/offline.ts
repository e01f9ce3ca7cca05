import { setTimeout as sleep } from 'node:timers/promises';
import { estimateCompletionTokens, estimatePromptTokens } from './estimate.js';
import { detectIntents, type OfflineIntent } from './offline-intents.js';
import type { ChatMessage, CompletionRequest, CompletionResult, PreparedCall, Provider, ToolCall } from './types.js';

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

const HELP =
  'I am the offline provider: I run inside agentd with no network and no API key, so I only understand a few ' +
  'requests: the current time ("what time is it in Tokyo?"), arithmetic ("what is 17*23?"), searching memory ' +
  '("search memory for invoices" or "what did I say about the trip?") and fetching a page ("fetch https://example.com"). ' +
  'To talk to a real model, set providers.default to anthropic or openai in the config file and export the key ' +
  'variable named by its api_key_env (ANTHROPIC_API_KEY or OPENAI_API_KEY), or point providers.openai.base_url at an ' +
  'OpenAI-compatible server such as Ollama (http://127.0.0.1:11434/v1); then allow the host in the network policy ' +
  '(network.presets or network.provider_allowed_hosts).';

/**
 * The built-in provider: deterministic, no network, no key, no cost. It recognises a few requests,
 * asks for the matching built-in tool on the first turn and answers from the tool results on the
 * next, so every path of the service (tool events, audit, memory, costs) works on a fresh machine.
 */
export class OfflineProvider implements Provider {
  readonly name = 'offline';
  readonly model = 'offline';

  available(): boolean {
    return true;
  }

  unavailableReason(): string | null {
    return null;
  }

  /** Free, so it holds nothing: its bound is zero tokens (its price is zero too). */
  prepare(request: CompletionRequest): PreparedCall {
    return { bound: { prompt_tokens: 0, completion_tokens: 0 }, send: () => this.complete(request) };
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    request.signal.throwIfAborted();
    const { text, toolCalls } = this.respond(request);
    if (request.onText) await streamInPieces(text, request.onText, request.signal);
    return {
      text,
      toolCalls,
      model: this.model,
      usage: {
        prompt_tokens: estimatePromptTokens(request.messages),
        completion_tokens: estimateCompletionTokens(text, toolCalls),
      },
    };
  }

  private respond(request: CompletionRequest): { text: string; toolCalls: ToolCall[] } {
    const { messages } = request;
    let lastUser = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i]!.role === 'user') {
        lastUser = i;
        break;
      }
    }
    if (lastUser < 0) return { text: HELP, toolCalls: [] };
    const userText = messages[lastUser]!.content;
    const intents = detectIntents(userText);

    const since = messages.slice(lastUser + 1);
    if (since.at(-1)?.role === 'tool') return { text: answerFromResults(since, intents), toolCalls: [] };

    const offered = new Set(request.tools.map((t) => t.name));
    const usable = intents.filter((intent) => offered.has(intent.tool));
    if (usable.length === 0) {
      const missing = intents.map((i) => i.tool);
      const note = missing.length ? `I would use the ${missing.join(' and ')} tool for this, but it is not available here. ` : '';
      return { text: note + HELP, toolCalls: [] };
    }
    // Ids only need to be unique within the conversation; deriving them from its length keeps them deterministic.
    const toolCalls = usable.map((intent, i) => ({
      id: `offline_${messages.length}_${i}`,
      name: intent.tool,
      arguments: { ...intent.args },
    }));
    return { text: '', toolCalls };
  }
}

/** Words per piece of a streamed answer, and the pause between pieces (short: tests wait for it). */
const WORDS_PER_PIECE = 4;
const PIECE_PAUSE_MS = 1;

/** Hands `text` to `onText` a few words at a time, as a hosted model's stream would. */
async function streamInPieces(text: string, onText: (delta: string) => void, signal: AbortSignal): Promise<void> {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  for (let i = 0; i < words.length; i += WORDS_PER_PIECE) {
    if (i > 0) await sleep(PIECE_PAUSE_MS);
    signal.throwIfAborted();
    onText(words.slice(i, i + WORDS_PER_PIECE).join(''));
  }
}

function firstLine(output: string, key: string): string | undefined {
  return new RegExp(`^${key}: (.*)$`, 'm').exec(output)?.[1];
}

function describeResult(result: ToolMessage, call: ToolCall | undefined, intents: OfflineIntent[]): string {
  if (result.isError) return `The ${result.name} tool failed: ${result.content}`;
  const args = call?.arguments ?? {};
  switch (result.name) {
    case 'current_time': {
      const local = firstLine(result.content, 'local_time');
      const zone = firstLine(result.content, 'time_zone') ?? 'UTC';
      const utc = firstLine(result.content, 'utc');
      const unknown = intents.find((i) => i.tool === 'current_time' && i.unknownPlace);
      const prefix = unknown && unknown.tool === 'current_time' ? `I do not know the time zone of "${unknown.unknownPlace}", so here is UTC. ` : '';
      return local ? `${prefix}The current time in ${zone} is ${local}${utc ? ` (${utc} UTC)` : ''}.` : `${prefix}${result.content}`;
    }
    case 'calculator':
      return `${String(args.expression ?? 'The result')} = ${result.content}`;
    case 'memory_search':
      return `Here is what I found in memory for "${String(args.query ?? '')}":\n${result.content}`;
    case 'web_fetch': {
      const excerpt = result.content.length > 2000 ? `${result.content.slice(0, 2000)}…` : result.content;
      return `I fetched ${String(args.url ?? 'the page')}. Here is the beginning of it:\n\n${excerpt}`;
    }
    default:
      return `The ${result.name} tool returned:\n${result.content}`;
  }
}

function answerFromResults(since: ChatMessage[], intents: OfflineIntent[]): string {
  const calls = new Map<string, ToolCall>();
  for (const m of since) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.set(c.id, c);
  return since
    .filter((m): m is ToolMessage => m.role === 'tool')
    .map((r) => describeResult(r, calls.get(r.toolCallId), intents))
    .join('\n\n');
}
