import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../storage/ports/runs.js';
import { sseFrame } from './sse-frames.js';

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
});
