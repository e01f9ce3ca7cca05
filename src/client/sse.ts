/** One Server-Sent Event as it came over the wire. */
export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/**
 * A stream of UTF-8 bytes as Server-Sent Events (the WHATWG event-stream format: `field: value`
 * lines, a blank line ends an event, `:` starts a comment). A line longer than `maxLineChars` is
 * refused rather than buffered without end.
 */
export async function* sseMessages(body: ReadableStream<Uint8Array>, maxLineChars: number): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let pending = '';
  let message: SseMessage = { id: null, event: 'message', data: '' };
  let hasData = false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // Lines end in \n or \r\n (a lone \r, which the format also allows, is not used by agentd).
      const lines = pending.split(/\r?\n/);
      // The last piece may be a line still arriving.
      pending = done ? '' : lines.pop()!;
      if (pending.length > maxLineChars) throw new Error(`an event stream line is longer than ${maxLineChars} characters`);
      for (const line of lines) {
        if (line === '') {
          if (hasData) yield message;
          message = { id: message.id, event: 'message', data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'id') message.id = value;
        else if (field === 'event') message.event = value;
        else if (field === 'data') {
          message.data = hasData ? `${message.data}\n${value}` : value;
          hasData = true;
        }
      }
      if (done) return;
    }
  } finally {
    // A consumer that stops early closes the connection.
    await reader.cancel().catch(() => undefined);
  }
}
