import type { LoggerService } from '@nestjs/common';
import {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import type { ServerConfig } from '../config/server-config';
import { tracing } from '../tracing/tracing';
import { traceIdsOf } from '../tracing/http-tracing.hook';

/**
 * Query parameters whose values are never logged: a token someone put in the URL (refused, but it must not be
 * logged either), a sign-in link's one-time `token`, an authorization `code` coming back from Google or
 * Microsoft, and search text (`q`: what a user looks for in their own memories is theirs).
 */
const UNLOGGED_PARAMETERS = new Set(['access_token', 'token', 'q', 'code']);

/**
 * The URL as it may be logged. Parameter names are compared decoded, as the server reads them (`access%5Ftoken`
 * is `access_token`); a name that cannot be decoded loses its value too.
 */
export function safeUrl(url: string | undefined): string {
  const [path, query] = splitOnce(url ?? '', '?');
  if (query === undefined) return path;
  const parameters = query.split('&').map((parameter) => {
    const [name, value] = splitOnce(parameter, '=');
    return value !== undefined && !mayLogValueOf(name) ? `${name}=[redacted]` : parameter;
  });
  return `${path}?${parameters.join('&')}`;
}

function mayLogValueOf(rawName: string): boolean {
  try {
    return !UNLOGGED_PARAMETERS.has(decodeURIComponent(rawName.replace(/\+/g, ' ')).toLowerCase());
  } catch {
    return false;
  }
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * Fastify's own pino logger. Serializers pick fields one by one rather than redacting known secrets, so that a
 * header added later (Authorization, cookies, API keys) is never logged by accident.
 */
export function loggerOptions(
  level: ServerConfig['logLevel'],
  destination?: { write(line: string): void },
): FastifyServerOptions['logger'] {
  const traced = tracing();
  return {
    level,
    ...(destination ? { stream: destination } : {}),
    // When tracing is on, a line written inside a traced request or run names its trace and span.
    ...(traced ? { mixin: () => activeTraceIds(traced) } : {}),
    serializers: {
      req: (req: { id?: string; method?: string; url?: string }) => ({
        id: req.id,
        method: req.method,
        url: safeUrl(req.url),
      }),
      res: (res: { statusCode?: number }) => ({ status_code: res.statusCode }),
    },
  };
}

/** Fastify's own per-request lines are off (see logRequests); request ids are logged as `request_id`. */
export function requestLogController(): LogController {
  return new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' });
}

/**
 * Fastify's `childLoggerFactory`: each request's logger (`request.log`, with its `request_id`) is made on its first
 * use. Most requests log nothing themselves (their one line is written at info, which servers usually run above),
 * and a pino child made for every request cost ~1 µs and ~0.7 KB of garbage.
 */
export const lazyChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => new LazyChildLogger(logger, bindings, options);

/** What a pino child is made with (pino's own types, as Fastify's logger type names them). */
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = Parameters<FastifyBaseLogger['child']>[1];

class LazyChildLogger implements FastifyBaseLogger {
  private made?: FastifyBaseLogger;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options?: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.logger().level;
  }
  set level(level: string) {
    this.logger().level = level;
  }
  fatal(...line: unknown[]): void {
    this.write('fatal', line);
  }
  error(...line: unknown[]): void {
    this.write('error', line);
  }
  warn(...line: unknown[]): void {
    this.write('warn', line);
  }
  info(...line: unknown[]): void {
    this.write('info', line);
  }
  debug(...line: unknown[]): void {
    this.write('debug', line);
  }
  trace(...line: unknown[]): void {
    this.write('trace', line);
  }
  silent(): void {
    // Nothing is written at level silent.
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', line: unknown[]): void {
    const logger = this.logger();
    (logger[level] as (...line: unknown[]) => void).apply(logger, line);
  }

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }
}

/**
 * One line per request, written after the response, instead of Fastify's two (incoming and completed). A 5xx is a
 * warning: the error-level line with the details is the one the problem filter writes for a bug.
 */
export function logRequests(fastify: FastifyInstance): void {
  // Fastify's logger is pino's, whose level check its type does not show.
  const log = fastify.log as FastifyInstance['log'] & { isLevelEnabled(level: string): boolean };
  const traced = tracing() !== undefined;
  // A callback hook, not an async one, and no line built when its level is off: it runs after every response.
  fastify.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const failed = status >= 500;
    if (log.isLevelEnabled(failed ? 'warn' : 'info')) {
      const line = {
        method: request.method,
        url: safeUrl(request.url),
        status_code: status,
        response_time_ms: Math.round(reply.elapsedTime * 10) / 10,
        // The request's own span (this hook runs outside its context).
        ...(traced ? traceIdsOf(request) : undefined),
      };
      if (failed) request.log.warn(line, 'request failed');
      else request.log.info(line, 'request');
    }
    done();
  });
}

function activeTraceIds(traced: NonNullable<ReturnType<typeof tracing>>): object {
  const span = traced.api.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Nest's own logs (start-up, errors caught by the filter) into the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: FastifyInstance['log']) {}

  /** Nest's "log" level is its start-up chatter (modules, routes): debug for us, so info stays one line a request. */
  log(message: unknown, context?: string): void {
    this.pino.debug(this.fields(message, context));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.pino.error({ ...this.fields(message, context), ...(trace ? { trace } : {}) });
  }
  warn(message: unknown, context?: string): void {
    this.pino.warn(this.fields(message, context));
  }
  debug(message: unknown, context?: string): void {
    this.pino.debug(this.fields(message, context));
  }
  verbose(message: unknown, context?: string): void {
    this.pino.trace(this.fields(message, context));
  }

  private fields(message: unknown, context?: string): Record<string, unknown> {
    const base =
      typeof message === 'object' && message !== null ? { ...(message as object) } : { msg: String(message) };
    return context ? { context, ...base } : base;
  }
}

/** pino's numbers for its levels, as the pretty lines name them. */
const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields every JSON line has that a person at a terminal does not need (or that the line's start shows). */
const UNSHOWN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'context', 'err']);

/**
 * Where the log lines go for a person at a terminal: the same lines, picked by the same serializers (so nothing
 * more is shown than the JSON would hold), written as `12:03:04 WARN  message  key=value …` so that they read
 * like the lines `assistant serve` prints itself. Any other stdout (a pipe, a file, a service manager) keeps the
 * JSON lines a log collector reads: `undefined` then, pino's default.
 */
export function terminalLogDestination(
  out: NodeJS.WriteStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): { write(line: string): void } | undefined {
  if (!out.isTTY) return undefined;
  const colors = !env['NO_COLOR'] && env['TERM'] !== 'dumb';
  return { write: (line: string) => void out.write(prettyLogLine(line, colors)) };
}

/** One JSON log line as a line for a terminal; a line that is not JSON is written as it is. */
export function prettyLogLine(line: string, colors = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = LEVEL_NAMES[entry['level'] as number] ?? String(entry['level']);
  const time = new Date(typeof entry['time'] === 'number' ? entry['time'] : Date.now());
  const clock = [time.getHours(), time.getMinutes(), time.getSeconds()]
    .map((part) => String(part).padStart(2, '0'))
    .join(':');
  const context = typeof entry['context'] === 'string' ? `[${entry['context']}] ` : '';
  const fields = Object.entries(entry)
    .filter(([name, value]) => !UNSHOWN_FIELDS.has(name) && value !== undefined)
    .map(([name, value]) => `${name}=${fieldText(value)}`);
  const error = entry['err'] as { message?: unknown; stack?: unknown } | undefined;
  const stack = typeof error?.stack === 'string' ? `\n${indent(error.stack)}` : '';
  const paint = (code: number, text: string) => (colors ? `\u001b[${code}m${text}\u001b[0m` : text);
  const levelColor = level === 'WARN' ? 33 : level === 'ERROR' || level === 'FATAL' ? 31 : 2;
  return `${paint(2, clock)} ${paint(levelColor, level.padEnd(5))} ${context}${String(entry['msg'] ?? '')}${
    fields.length > 0 ? `  ${paint(2, fields.join(' '))}` : ''
  }${stack}\n`;
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /[\s"]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
