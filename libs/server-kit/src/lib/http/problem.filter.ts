import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '@assistant/contracts';
import { replyWithProblem, SEND_JSON, type ProblemAnswer } from './reply-problem';
import { safeUrl } from './logging';
import { methodNotAllowed } from './method-not-allowed';

/**
 * Fastify refuses some bodies before any route runs; Nest hands those on as a bare HttpException with
 * Fastify's status and message, so they are recognised by status.
 */
const BODY_ERRORS_BY_STATUS: Record<number, (message: string) => ProblemAnswer> = {
  400: (message) => invalidBody(/json/i.test(message) ? `the body is not valid JSON: ${message}` : message),
  413: () => ({ code: 'payload_too_large', detail: 'the body is larger than 64 KiB' }),
  415: () => ({ code: 'unsupported_media_type', detail: SEND_JSON }),
};

function invalidBody(message: string): ProblemAnswer {
  return { code: 'validation_failed', detail: message, errors: [{ field: 'body', message }] };
}

/** The one place where any error becomes an RFC 9457 problem (SPEC §5). Nothing internal leaks out. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    replyWithProblem(request, reply, problemFor(exception, request));
  }
}

/** What the client is told about an error: its own words for a ProblemError, nothing of anything else. */
export function problemFor(exception: unknown, request: FastifyRequest): ProblemAnswer {
  if (exception instanceof ProblemError) {
    return {
      code: exception.code,
      detail: exception.detail,
      errors: exception.fieldErrors,
      headers: exception.headers,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (BODY_ERRORS_BY_STATUS[status]) return BODY_ERRORS_BY_STATUS[status](exception.message);
    // Nest's answer for a request that no route took: 405 when the path is declared with other methods.
    if (status === 404) {
      return (
        methodNotAllowed(request.method, request.url) ?? {
          code: 'not_found',
          detail: `no route for ${request.method} ${request.url.split('?')[0]}`,
        }
      );
    }
    if (status === 405)
      return { code: 'method_not_allowed', detail: `${request.method} is not allowed here` };
  }
  if ((exception as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET') {
    // Node's word for a request whose connection closed before its body was complete: no one is left to
    // answer, and it is the client's doing, not a bug.
    request.log.info({ method: request.method, url: safeUrl(request.url) }, 'request aborted by the client');
    return { code: 'bad_request', detail: 'the connection closed before the request was complete' };
  }
  // A bug: the details go to the log under the request id the client is given, never to the client.
  request.log.error({ err: exception, method: request.method, url: safeUrl(request.url) }, 'unhandled error');
  return {
    code: 'internal',
    detail: 'something went wrong on our side; quote the request_id if you report it',
  };
}
