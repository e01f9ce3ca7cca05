import { liveEvent, type LiveEvent } from '../../../runs/fan-out.js';
import type { RunEvent } from '../../../storage/ports/runs.js';

/**
 * The SSE frames of run events, encoded once and shared: every viewer of a run, live or replaying
 * the stored log, writes the same bytes for the same event. A string written to N sockets is
 * encoded again for each (a 16 MiB answer to 40 viewers was 640 MiB), and each replay reads its own
 * copy of the log from the store. A frame lives as long as something holds it (a socket's pending
 * write, a viewer's queue); a later viewer encodes it again.
 */
const frames = new Map<string, WeakRef<Buffer>>();
const forget = new FinalizationRegistry<string>((key) => {
  if (frames.get(key)?.deref() === undefined) frames.delete(key);
});

export function sseFrame(runId: string, event: RunEvent): Buffer {
  const key = `${runId}:${event.id}`;
  const held = frames.get(key)?.deref();
  if (held) return held;
  const frame = Buffer.from(`id: ${event.id}\nevent: ${event.name}\ndata: ${event.data}\n\n`);
  frames.set(key, new WeakRef(frame));
  forget.register(frame, key);
  return frame;
}

/** Live events have no id; one is encoded once for all the viewers it is handed to (the same object). */
const liveFrames = new WeakMap<LiveEvent, Buffer>();

export function liveFrame(event: LiveEvent): Buffer {
  let frame = liveFrames.get(event);
  if (!frame) liveFrames.set(event, (frame = Buffer.from(`event: ${event.name}\ndata: ${event.data}\n\n`)));
  return frame;
}

/**
 * The `run.text` frame of a run's text so far (up to 1 MiB), shared the same way: viewers that join
 * while the text has not moved on write the same bytes, instead of each holding a frame of its own.
 */
const textFrames = new Map<string, { text: string; frame: WeakRef<Buffer> }>();
const forgetText = new FinalizationRegistry<string>((runId) => {
  if (textFrames.get(runId)?.frame.deref() === undefined) textFrames.delete(runId);
});

export function runTextFrame(runId: string, text: string): Buffer {
  const held = textFrames.get(runId);
  const shared = held?.text === text ? held.frame.deref() : undefined;
  if (shared) return shared;
  const frame = liveFrame(liveEvent('run.text', text));
  textFrames.set(runId, { text, frame: new WeakRef(frame) });
  forgetText.register(frame, runId);
  return frame;
}
