/**
 * Turns of the event loop, counted by an immediate that re-arms itself: work done in slices, one
 * per turn, is told apart by the count each slice saw.
 */
export function turnCounter(): { now(): number; stop(): void } {
  let turn = 0;
  let running = true;
  const tick = () => {
    turn++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turn, stop: () => void (running = false) };
}
