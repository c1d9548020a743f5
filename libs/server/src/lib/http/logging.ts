import type { LoggerService } from '@nestjs/common';
import { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { ServerConfig } from '../config/server-config';

/** Drops the query string's `access_token` (refused, but it must not be logged either). */
export function safeUrl(url: string | undefined): string {
  return (url ?? '').replace(/([?&]access_token=)[^&]*/gi, '$1[redacted]');
}

/**
 * Fastify's own pino logger. Serializers pick fields one by one rather than redacting known secrets, so that a
 * header added later (Authorization, cookies, API keys) is never logged by accident.
 */
export function loggerOptions(level: ServerConfig['logLevel']): FastifyServerOptions['logger'] {
  return {
    level,
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

/** One line per request, written after the response, instead of Fastify's two (incoming and completed). */
export function logRequests(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    const line = {
      method: request.method,
      url: safeUrl(request.url),
      status_code: status,
      response_time_ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (status >= 500) request.log.error(line, 'request failed');
    else request.log.info(line, 'request');
  });
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
