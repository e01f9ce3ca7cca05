import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Level, type Logger as PinoLogger } from 'pino';
import { censor } from './security/secrets/secrets.js';

/** What a line may carry besides its message. */
export interface LogFields {
  /** The HTTP request the line was written for (its `X-Request-Id`), when there is one. */
  request_id?: string;
}

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /**
   * The pino instance behind this logger, when there is one: the HTTP server logs its requests
   * through it, so the service's own lines and the request lines come out in one format.
   */
  readonly pino?: PinoLogger;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LoggerOptions {
  /** Lowest level written (default `info`). */
  level?: LogLevel;
  /** `json` (one object per line, the default) or `pretty` (human-readable, for a terminal). */
  format?: LogFormat;
  /** Where lines go; default standard error (standard output is kept for the ready line and the first-run banner, which scripts read). */
  destination?: DestinationStream;
}

/**
 * The service's logger, on pino. Every message goes through the secret censor, so a key that
 * slips into an error message never reaches the log; a line written for a request carries its
 * `request_id` (passed by the caller, which knows its request).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const format = options.format ?? 'json';
  const destination = options.destination ?? (format === 'pretty' ? prettyStream() : pino.destination({ fd: 2, sync: true }));
  return wrap(createPino(options.level ?? 'info', destination));
}

function createPino(level: LogLevel, destination: DestinationStream): PinoLogger {
  return pino(
    {
      level,
      base: null,
      // `time` stays pino's milliseconds since the epoch: formatting an ISO date for every line was
      // a measurable share of a request's cost. Memory lines and pretty output show it as a date.
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        // Censors messages from every writer, Fastify's own lines included.
        logMethod(args, method) {
          const last = args.length - 1;
          if (typeof args[last] === 'string') args[last] = censor(args[last] as string);
          return method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

function prettyStream(): DestinationStream {
  // Loaded only when asked for: JSON output (the default) does not need it.
  const pretty = createRequire(import.meta.url)('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
  return pretty({ destination: 2, sync: true, colorize: Boolean(process.stderr.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

function wrap(instance: PinoLogger): Logger {
  const emit = (level: 'info' | 'warn' | 'error', message: string, fields: LogFields | undefined) => {
    if (fields === undefined) instance[level](message);
    else instance[level](fields, message);
  };
  return {
    pino: instance,
    info: (m, fields) => emit('info', m, fields),
    warn: (m, fields) => emit('warn', m, fields),
    error: (m, fields) => emit('error', m, fields),
  };
}

/** Room for one line in the memory logger's block: a request line takes about 200 bytes. */
const LINE_SLOT_BYTES = 512;

/**
 * A logger that keeps the last `max` lines in memory (embedders and tests that want quiet output).
 * Lines read as `<time> <level> <message> key=value …`; they are rendered when read, so keeping
 * them costs a request little more than the copy.
 */
export function createMemoryLogger(max = 1000, level: LogLevel = 'info'): Logger & { readonly lines: string[] } {
  // Kept as UTF-8 bytes, outside the JS heap: the strings pino builds are chains of small pieces,
  // and a ring of them made every young-generation collection copy a thousand lines' worth. Each
  // line is copied into its slot of one block allocated up front, so keeping it allocates nothing
  // (a buffer per line was a measurable share of a health request); a longer line gets its own.
  const block = Buffer.allocUnsafeSlow(max * LINE_SLOT_BYTES);
  const lengths = new Int32Array(max);
  const longer: (Buffer | undefined)[] = [];
  let written = 0;
  const destination: DestinationStream = {
    write(line: string) {
      const slot = written++ % max;
      const bytes = block.write(line, slot * LINE_SLOT_BYTES, LINE_SLOT_BYTES, 'utf8');
      // `write` stops before a character that does not fit whole: only a line close to the slot's size may have been cut.
      const cut = bytes > LINE_SLOT_BYTES - 4 && Buffer.byteLength(line, 'utf8') > bytes;
      longer[slot] = cut ? Buffer.from(line, 'utf8') : undefined;
      lengths[slot] = bytes;
    },
  };
  const logger = wrap(createPino(level, destination));
  const lineAt = (slot: number) =>
    longer[slot]?.toString('utf8') ?? block.toString('utf8', slot * LINE_SLOT_BYTES, slot * LINE_SLOT_BYTES + lengths[slot]!);
  return {
    ...logger,
    get lines() {
      const kept = Math.min(written, max);
      const oldest = written - kept;
      return Array.from({ length: kept }, (_, i) => renderLine(lineAt((oldest + i) % max)));
    },
  };
}

/** `<ISO time> <level> <message> key=value …` from one JSON log line. */
export function renderLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const { time, level, msg, ...fields } = record;
  const extra = Object.entries(fields).map(([key, value]) => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const when = typeof time === 'number' ? new Date(time).toISOString() : String(time);
  return `${when} ${String(level)} ${String(msg ?? '')}${extra.join('')}`;
}

/** A line already in pino's JSON shape, written to the instance's destination as pino itself would. */
export function writeLine(instance: PinoLogger, line: string): void {
  (instance as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!.write(line);
}

/** A pino instance for a logger that has none (an embedder's own): its lines reach that logger as text. */
export function pinoFor(log: Logger): PinoLogger {
  if (log.pino) return log.pino;
  return createPino('info', {
    write(line: string) {
      const text = renderLine(line).replace(/^\S+ \S+ /, '');
      const level = /"level":"(\w+)"/.exec(line)?.[1] as Level | undefined;
      if (level === 'error' || level === 'fatal') log.error(text);
      else if (level === 'warn') log.warn(text);
      else log.info(text);
    },
  });
}
