import { censor } from './security/secrets.js';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * Plain-text logger to standard error. Every line goes through the secret censor, so a key that
 * slips into an error message never reaches the log. Standard output is kept for the ready line
 * and the first-run banner, which scripts read.
 */
export function createLogger(write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const emit = (level: string, message: string) =>
    write(`${new Date().toISOString()} ${level} ${censor(message)}\n`);
  return {
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
  };
}

/** A logger that keeps the last `max` lines in memory (embedders and tests that want quiet output). */
export function createMemoryLogger(max = 1000): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    ...createLogger((line) => {
      lines.push(line.trimEnd());
      if (lines.length > max) lines.shift();
    }),
  };
}
