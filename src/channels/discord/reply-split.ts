/** Discord refuses a message longer than this (docs/discord.md#replies). */
export const DISCORD_MESSAGE_LIMIT = 2000;

const FENCE = /^\s*(```|~~~)/;

/**
 * Splits an answer into messages of at most `limit` characters (UTF-16 units, which are never
 * fewer than Discord's count). Cuts fall at line ends where possible, else at a space, else
 * anywhere but inside a surrogate pair. A cut inside a code block closes the fence in the part
 * that ends and opens it again (with its language) in the next, so every part renders as code.
 */
export function splitReply(text: string, limit = DISCORD_MESSAGE_LIMIT): string[] {
  if (text.length <= limit) return [text];
  const parts: string[] = [];
  /** The fence line that opened the block the cursor is in (` ```ts `), or null outside one. */
  let openFence: string | null = null;
  let current = '';
  /** No line of the text in the current part yet (it is empty, or holds the reopened fence). */
  let fresh = true;
  const closing = () => (openFence === null ? '' : `\n${fenceMarker(openFence)}`);
  const flush = () => {
    parts.push(current + closing());
    current = openFence === null ? '' : `${openFence}\n`;
    fresh = true;
  };
  for (const line of text.split('\n')) {
    let rest = line;
    const separator = () => (fresh ? '' : '\n');
    // The line, or as much of it as fits, goes into the current part; the rest starts new ones.
    for (;;) {
      const room = limit - current.length - separator().length - closingAfter(openFence, rest).length;
      if (rest.length <= room) {
        current += separator() + rest;
        fresh = false;
        break;
      }
      // A part holding nothing but the fence that opens the block is not sent empty: the line is cut into it.
      if (!fresh && current !== openFence) {
        flush();
        continue;
      }
      // The line alone does not fit in an empty part: cut it.
      const cut = cutPoint(rest, Math.max(1, room));
      current += separator() + rest.slice(0, cut);
      rest = rest.slice(cut);
      flush();
    }
    if (FENCE.test(line)) openFence = openFence === null ? reopening(line) : null;
  }
  if (!fresh) parts.push(current);
  return parts;
}

/** What the part must keep room for after `line`: the fence's closing, unless the line closes it. */
function closingAfter(openFence: string | null, line: string): string {
  if (openFence === null) return FENCE.test(line) ? `\n${fenceMarker(line.trim())}` : '';
  return FENCE.test(line) ? '' : `\n${fenceMarker(openFence)}`;
}

/** The fence line to open a continued block with: its language kept, unless the line is too long to repeat. */
function reopening(line: string): string {
  const trimmed = line.trim();
  return trimmed.length <= 32 ? trimmed : fenceMarker(trimmed);
}

function fenceMarker(fenceLine: string): string {
  return fenceLine.startsWith('~~~') ? '~~~' : '```';
}

/** Where to cut a line longer than `room`: after the last space that fits, else at `room`, never inside a surrogate pair. */
function cutPoint(line: string, room: number): number {
  const space = line.lastIndexOf(' ', room - 1);
  if (space > room / 2) return space + 1;
  const code = line.charCodeAt(room - 1);
  return code >= 0xd800 && code <= 0xdbff && room > 1 ? room - 1 : room;
}
