import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { escapeLogText } from '../shared/log-text';

/**
 * Logs of the Node servers: pino JSON lines (one object a line, with `level`, `time` and `msg`) for a
 * log pipeline, or pino-pretty's human-readable lines on a terminal. The service and the gateway do not
 * see pino: they log through a `LogHook` (a line, and optionally its level and fields), which the
 * composition root turns into pino calls and tests collect as strings.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Fields of a log line (structured, for the JSON form), and its level (default `info`). */
export interface LogFields {
  readonly level?: LogLevel;
  readonly [field: string]: unknown;
}

/** How the service and the gateway log: a line, and optionally its level and fields. */
export type LogHook = (line: string, fields?: LogFields) => void;

/** `LOG_LEVEL` values (pino's levels; `silent` logs nothing). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LoggerLevel = (typeof LOG_LEVELS)[number];

/** `LOG_FORMAT`: `json` lines, or `pretty` for people. */
export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  readonly level: LoggerLevel;
  readonly format: LogFormat;
  /** Where lines go (default: standard output, written synchronously so nothing is lost at exit). */
  readonly destination?: DestinationStream;
  /** Colours in the pretty form (default: whether standard output is a terminal). */
  readonly colorize?: boolean;
}

/** Request fields the pretty form leaves out: its message already says them (`GET /path 200 1.2ms`). */
const REQUEST_FIELDS = ['reqId', 'method', 'route', 'url', 'status', 'durationMs'];

/** A log call's arguments with every text escaped: the message, and the string values of its fields object. */
function escapedArgs(args: unknown[]): unknown[] {
  return args.map((arg) => {
    if (typeof arg === 'string') return escapeLogText(arg);
    if (arg === null || typeof arg !== 'object' || arg instanceof Error || Array.isArray(arg)) return arg;
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(arg))
      fields[key] = typeof value === 'string' ? escapeLogText(value) : value;
    return fields;
  });
}

/** The process's logger, JSON or pretty. Every message and text field is escaped first (`escapeLogText`). */
export function createLogger(options: LoggerOptions): Logger {
  const base = {
    level: options.level,
    base: { pid: process.pid },
    hooks: {
      logMethod(this: Logger, args: Parameters<Logger['info']>, method: (...args: unknown[]) => void) {
        method.apply(this, escapedArgs(args));
      },
    },
  };
  if (options.format === 'pretty') {
    const pretty = pinoPretty({
      sync: true,
      colorize: options.colorize ?? process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: ['pid', 'hostname', ...REQUEST_FIELDS].join(','),
      singleLine: true,
      ...(options.destination ? { destination: options.destination as NodeJS.WritableStream } : {}),
    });
    return pino(base, pretty);
  }
  return pino(base, options.destination ?? pino.destination({ dest: 1, sync: true }));
}

/** A `LogHook` that writes to `logger` at the line's level (default info). */
export function logHookOf(logger: Logger): LogHook {
  return (line, fields) => {
    const { level = 'info', ...rest } = fields ?? {};
    logger[level](rest, line);
  };
}

/**
 * `LOG_LEVEL` and `LOG_FORMAT` (throws an Error naming the variable). The format defaults to pretty on a
 * terminal, JSON anywhere else (a pipe, a file, a container's log collector).
 */
export function parseLogSettings(
  env: Readonly<Record<string, string | undefined>>,
  isTty: boolean,
): { level: LoggerLevel; format: LogFormat } {
  const level = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  const format = (env.LOG_FORMAT || (isTty ? 'pretty' : 'json')).toLowerCase();
  if (format !== 'json' && format !== 'pretty')
    throw new Error(`LOG_FORMAT must be json or pretty (got "${env.LOG_FORMAT}")`);
  return { level: level as LoggerLevel, format };
}

/**
 * A request id a client or proxy may set (`X-Request-Id`): a token of letters, digits and `._:+=/-`,
 * at most 128 characters: nothing that could break a log line or a header, or smuggle text into either.
 * Until the server knows which proxies it trusts (TRUST_PROXY), any client's safe token is taken.
 */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:+=/-]{1,128}$/;

/** The request's id: the `X-Request-Id` it came with when that is a safe token, else a new UUID. */
export function requestIdOf(header: string | undefined): string {
  return header !== undefined && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Ids given to requests, so code that handles a request further in (the service's app) logs the same id. */
const ids = new WeakMap<Request, string>();

/** Remembers `request`'s id (the outermost app assigns it). */
export function setRequestId(request: Request, id: string): void {
  ids.set(request, id);
}

/** The id the outermost app gave `request`, if any. */
export function requestIdFor(request: Request): string | undefined {
  return ids.get(request);
}

/** A log hook whose line and text fields go through `redact` (addresses that may carry a key). */
export function redactedLog(log: LogHook, redact: (text: string) => string): LogHook {
  return (line, fields) => {
    if (!fields) return log(redact(line));
    const safe: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) safe[key] = typeof value === 'string' ? redact(value) : value;
    log(redact(line), safe as LogFields);
  };
}
