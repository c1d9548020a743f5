import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Options } from 'pino-http';
import type { ServerConfig } from '../config/server-config';

/** Drops the query string's `access_token` (refused, but it must not be logged either). */
function safeUrl(url: string | undefined): string {
  return (url ?? '').replace(/([?&]access_token=)[^&]*/gi, '$1[redacted]');
}

/**
 * Structured request logs. Serializers pick fields one by one rather than redacting known secrets, so that a
 * header added later (Authorization, cookies, API keys) is never logged by accident.
 */
export function loggerOptions(level: ServerConfig['logLevel']): Options {
  return {
    level,
    customAttributeKeys: { reqId: 'request_id' },
    serializers: {
      req: (req: IncomingMessage & { id?: string }) => ({
        id: req.id,
        method: req.method,
        url: safeUrl(req.url),
      }),
      res: (res: ServerResponse) => ({ status_code: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  };
}
