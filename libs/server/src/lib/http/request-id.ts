import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const CLIENT_REQUEST_ID = /^[\w.-]{1,64}$/;

export function newRequestId(): string {
  return `req_${randomBytes(10).toString('hex')}`;
}

/** Takes the client's X-Request-Id when it is sane, else makes one; pino-http reads it from `req.id`. */
export function requestId(raw: IncomingMessage): string {
  const offered = raw.headers['x-request-id'];
  const id = typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered) ? offered : newRequestId();
  (raw as IncomingMessage & { id?: string }).id = id;
  return id;
}
