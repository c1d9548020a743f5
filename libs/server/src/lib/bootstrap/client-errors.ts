import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, problemOf } from '@assistant/contracts';
import {
  clientAddressKey,
  type RateLimiter,
  type RateLimits,
  type RateLimitVerdict,
} from '../rate-limit/rate-limit.hook';
import {
  replyWithProblem,
  type ProblemAnswer,
  problemFor,
  prepareReply,
  newRequestId,
  EVERY_RESPONSE_HEADERS,
} from '@assistant/server-kit';

/** What Node's HTTP parser (and its deadlines) report, in the API's words. */
function problemOfClientError(error: NodeJS.ErrnoException): ProblemAnswer {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', detail: 'the request line and headers are larger than 16 KiB' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', detail: 'the request did not arrive in time; send it again whole' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', detail: 'the chunk extensions of the body are too large' };
    default:
      // Node's parser names the fault in its reason (e.g. "Invalid header value char", "Duplicate Content-Length").
      return {
        code: 'bad_request',
        detail: `the request is not valid HTTP/1.1: ${(error as { reason?: string }).reason ?? error.code ?? 'unreadable'}`,
      };
  }
}

/**
 * Answers the requests Node's HTTP parser refuses before Fastify sees them (headers too large, a bad request
 * line or header, a duplicate Content-Length, bad chunks, a deadline missed): a problem with a request id and
 * the rate-limit headers, counted against the client address like any request without a verified token. The
 * parser's state is lost, so the answer is written to the socket whole, and the connection closed.
 */
export function answerClientError(limits: RateLimits, log: () => FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset or a socket already gone: no one to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    // A response already under way (an event stream) cannot take a second status line; just close.
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = newRequestId();
    const problem = problemOfClientError(error);
    log().info(
      { request_id: requestId, reason: error.code, status_code: ERROR_CODES[problem.code].status },
      'client error',
    );
    // A promise either way (the count may be at hand, or fail at once): this path is rare, and never in a hurry.
    new Promise<RateLimitVerdict>((counted) =>
      counted(limits.count('core', clientAddressKey(socket.remoteAddress))),
    ).then(
      (verdict) => writeProblem(socket, requestId, verdict.exceeded ?? problem, verdict.headers),
      () => writeProblem(socket, requestId, problem, {}),
    );
  };
}

function writeProblem(
  socket: Socket,
  requestId: string,
  problem: ProblemAnswer,
  rateLimitHeaders: Record<string, string>,
): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(problemOf(problem.code, problem.detail, requestId, problem.errors));
  const headers = {
    'content-type': 'application/problem+json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    'x-request-id': requestId,
    ...EVERY_RESPONSE_HEADERS,
    ...rateLimitHeaders,
    ...problem.headers,
  };
  const status = ERROR_CODES[problem.code].status;
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  // The socket may be half-dead (the client stopped reading): do not keep it for the kernel to drain.
  socket.destroySoon();
}

/** What Fastify reports for a URL it cannot route at all. */
function problemOfFrameworkError(error: FastifyError, request: FastifyRequest): ProblemAnswer {
  switch (error.code) {
    // A path segment that is not valid percent-encoded UTF-8, or longer than any id the server gives out, names
    // nothing that exists.
    case 'FST_ERR_BAD_URL':
      return { code: 'not_found', detail: 'nothing is at this URL: it is not validly percent-encoded' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return {
        code: 'not_found',
        detail: 'nothing has this id: a path segment is longer than 100 characters',
      };
    default:
      return problemFor(error, request);
  }
}

/**
 * Answers the requests Fastify refuses before routing (Fastify's `frameworkErrors`): the same problem, request
 * id, headers and rate-limit counting as any other answer.
 */
export function answerFrameworkError(limit: RateLimiter) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    prepareReply(request, reply);
    new Promise<boolean>((answered) => answered(limit(request, reply))).then(
      (answered) => {
        if (!answered) replyWithProblem(request, reply, problemOfFrameworkError(error, request));
      },
      (failure: unknown) => replyWithProblem(request, reply, problemFor(failure, request)),
    );
  };
}
