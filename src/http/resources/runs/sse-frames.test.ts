import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../storage/ports/runs.js';
import { runTextFrame, sseFrame } from './sse-frames.js';

const event = (id: number, data = '{"pad":"x"}'): RunEvent => ({ id, name: 'tool.result', data });

describe('sseFrame', () => {
  it('frames an event as id, event and data lines, as bytes', () => {
    const frame = sseFrame('run_frames_a', event(7));
    expect(frame).toBeInstanceOf(Buffer);
    expect(frame.toString()).toBe('id: 7\nevent: tool.result\ndata: {"pad":"x"}\n\n');
  });

  it('gives every viewer of an event the same buffer, also for a copy read again from the store', () => {
    const live = event(3);
    const frame = sseFrame('run_frames_b', live);
    expect(sseFrame('run_frames_b', live)).toBe(frame);
    // A replay reads its own objects from the store: while the frame is held, it is shared too.
    expect(sseFrame('run_frames_b', { ...live })).toBe(frame);
    // Another run's event 3 is another frame.
    expect(sseFrame('run_frames_c', event(3, '{"other":true}')).toString()).toContain('"other"');
  });

  it('gives viewers that join while the text is the same one run.text frame, and a new one once it moved on', () => {
    const text = 'so far '.repeat(1000);
    const frame = runTextFrame('run_frames_d', text);
    expect(frame.toString()).toBe(`event: run.text\ndata: ${JSON.stringify({ text })}\n\n`);
    // Equal text, even as another string object: the same buffer.
    expect(runTextFrame('run_frames_d', `${text}x`.slice(0, -1))).toBe(frame);
    const further = runTextFrame('run_frames_d', `${text}more`);
    expect(further).not.toBe(frame);
    expect(further.toString()).toContain('so far more');
    // Another run with the same text has its own.
    expect(runTextFrame('run_frames_e', text)).not.toBe(frame);
  });
});
