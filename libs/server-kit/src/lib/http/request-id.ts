import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const CLIENT_REQUEST_ID = /^[\w.-]{1,64}$/;

const ID_BYTES = 10;
/**
 * Random bytes drawn for many ids at once: one `randomBytes(10)` per request cost ~5 µs (a system call and a
 * buffer each), more than the rest of the id's work; a batch costs about the same as one draw.
 */
const entropy = Buffer.alloc(ID_BYTES * 512);
let used = entropy.length;

export function newRequestId(): string {
  if (used === entropy.length) {
    randomFillSync(entropy);
    used = 0;
  }
  const id = `req_${entropy.toString('hex', used, used + ID_BYTES)}`;
  used += ID_BYTES;
  return id;
}

/** Takes the client's X-Request-Id when it is sane, else makes one; pino-http reads it from `req.id`. */
export function requestId(raw: IncomingMessage): string {
  const offered = raw.headers['x-request-id'];
  const id = typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered) ? offered : newRequestId();
  (raw as IncomingMessage & { id?: string }).id = id;
  return id;
}
