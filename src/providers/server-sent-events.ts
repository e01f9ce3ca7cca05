/** One Server-Sent Event: its `event` field (null when it has none) and its data lines joined by "\n". */
export interface ServerSentEvent {
  event: string | null;
  data: string;
}

/** A line ends at CRLF, LF or a lone CR (the text/event-stream grammar). */
const LINE_END = /\r\n|\r|\n/g;

/**
 * Splits decoded text into lines as it arrives. Each chunk is searched once, from where the
 * previous line ended, and an unfinished line is kept as pieces joined once its end arrives: the
 * work is linear in the stream's size, however long one line is (docs/gateway.md, "Provider streams").
 */
class LineSplitter {
  private pieces: string[] = [];
  /** The previous chunk ended with CR: a LF opening this one belongs to the same line end. */
  private afterCR = false;

  push(text: string): string[] {
    let start = 0;
    if (this.afterCR && text.length > 0) {
      if (text[0] === '\n') start = 1;
      this.afterCR = false;
    }
    const lines: string[] = [];
    LINE_END.lastIndex = start;
    for (let match = LINE_END.exec(text); match; match = LINE_END.exec(text)) {
      this.pieces.push(text.slice(start, match.index));
      lines.push(this.pieces.join(''));
      this.pieces = [];
      start = LINE_END.lastIndex;
      if (match[0] === '\r' && start === text.length) this.afterCR = true;
    }
    if (start < text.length) this.pieces.push(text.slice(start));
    return lines;
  }
}

/**
 * Reads a text/event-stream body into events, each handed on as soon as its blank line arrives.
 * Comments and the `id` and `retry` fields are skipped; an event left unfinished when the body
 * ends is dropped, as the format says. If the reader stops early, the body is cancelled.
 */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  const lines = new LineSplitter();
  let event: string | null = null;
  let data: string[] = [];
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const line of lines.push(decoder.decode(value, { stream: true }))) {
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') };
          event = null;
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        let fieldValue = colon === -1 ? '' : line.slice(colon + 1);
        if (fieldValue.startsWith(' ')) fieldValue = fieldValue.slice(1);
        if (name === 'data') data.push(fieldValue);
        else if (name === 'event') event = fieldValue;
      }
    }
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
