/** One Server-Sent Event: the last event id the stream set (it carries over), its type and its data lines joined by "\n". */
export interface EventStreamMessage {
  id: string | null;
  /** `message` when the event names none. */
  event: string;
  data: string;
}

/** A line ends at CRLF, LF or a lone CR (the WHATWG event-stream format). */
const LINE_END = /\r\n|\r|\n/g;

/**
 * Splits decoded text into lines as it arrives. Each chunk is searched once, from where the
 * previous line ended, and an unfinished line is kept as pieces joined once its end arrives: the
 * work is linear in the stream's size, however long one line is (docs/gateway.md#provider-streams).
 */
class LineSplitter {
  private pieces: string[] = [];
  /** Characters in `pieces`. */
  private waiting = 0;
  /** The previous chunk ended with CR: a LF opening this one belongs to the same line end. */
  private afterCR = false;

  constructor(private readonly maxLineChars: number) {}

  push(text: string): string[] {
    let start = 0;
    if (this.afterCR && text.length > 0) {
      if (text[0] === '\n') start = 1;
      this.afterCR = false;
    }
    const lines: string[] = [];
    LINE_END.lastIndex = start;
    for (let match = LINE_END.exec(text); match; match = LINE_END.exec(text)) {
      this.keep(text.slice(start, match.index));
      lines.push(this.pieces.join(''));
      this.pieces = [];
      this.waiting = 0;
      start = LINE_END.lastIndex;
      if (match[0] === '\r' && start === text.length) this.afterCR = true;
    }
    if (start < text.length) this.keep(text.slice(start));
    return lines;
  }

  private keep(piece: string): void {
    this.waiting += piece.length;
    if (this.waiting > this.maxLineChars) throw new Error(`an event stream line is longer than ${this.maxLineChars} characters`);
    this.pieces.push(piece);
  }
}

/**
 * A stream of UTF-8 bytes as Server-Sent Events, each handed on as soon as its blank line arrives.
 * Comments and `retry` are skipped; an event the stream ends before its blank line is dropped, as
 * the format says. A line longer than `maxLineChars` is refused rather than buffered without end.
 * When the reader stops early, or the stream fails, the body is cancelled (its connection closed).
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>, maxLineChars = Infinity): AsyncGenerator<EventStreamMessage> {
  const decoder = new TextDecoder();
  const lines = new LineSplitter(maxLineChars);
  let id: string | null = null;
  let event = 'message';
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const line of lines.push(decoder.decode(value, { stream: true }))) {
        if (line === '') {
          if (data.length > 0) yield { id, event, data: data.join('\n') };
          event = 'message';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const fieldValue = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'data') data.push(fieldValue);
        else if (field === 'event') event = fieldValue;
        else if (field === 'id') id = fieldValue;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
