import type { Logger } from '../../src/log.js';

/** A logger that keeps each message as it was written, whatever its level: tests compare the text. */
export function collectingLogger(messages: string[]): Logger {
  const keep = (message: string): void => {
    messages.push(message);
  };
  return { info: keep, warn: keep, error: keep };
}

/** A logger that drops every line. */
export const quietLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
