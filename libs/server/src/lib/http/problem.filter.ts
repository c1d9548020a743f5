import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode, FieldError } from '@assistant/contracts';
import { AuthError } from '@assistant/auth';
import { StorageError } from '@assistant/storage';
import { ApiError } from './api-error';
import { replyWithProblem, SEND_JSON } from './reply-problem';

interface Mapped {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

/**
 * Fastify refuses some bodies before any route runs; Nest hands those on as a bare HttpException with
 * Fastify's status and message, so they are recognised by status.
 */
const BODY_ERRORS_BY_STATUS: Record<number, (message: string) => Mapped> = {
  400: (message) => invalidBody(/json/i.test(message) ? `the body is not valid JSON: ${message}` : message),
  413: () => ({ code: 'payload_too_large', detail: 'the body is larger than 64 KiB' }),
  415: () => ({ code: 'unsupported_media_type', detail: SEND_JSON }),
};

function invalidBody(message: string): Mapped {
  return { code: 'validation_failed', detail: message, errors: [{ field: 'body', message }] };
}

/** The one place where any error becomes an RFC 9457 problem (SPEC §5). Nothing internal leaks out. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const mapped = this.map(exception, request);
    replyWithProblem(request, reply, mapped);
  }

  private map(exception: unknown, request: FastifyRequest): Mapped {
    if (exception instanceof ApiError) {
      return {
        code: exception.code,
        detail: exception.detail,
        errors: exception.fieldErrors,
        headers: exception.headers,
      };
    }
    if (exception instanceof AuthError) {
      return {
        code: exception.code,
        detail: exception.message,
        headers: { 'www-authenticate': exception.challenge },
      };
    }
    if (exception instanceof StorageError && exception.code === 'invalid_cursor') {
      return {
        code: 'validation_failed',
        detail: exception.message,
        errors: [{ field: 'cursor', message: exception.message }],
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (BODY_ERRORS_BY_STATUS[status]) return BODY_ERRORS_BY_STATUS[status](exception.message);
      if (status === 404)
        return { code: 'not_found', detail: `no route for ${request.method} ${request.url.split('?')[0]}` };
      if (status === 405)
        return { code: 'method_not_allowed', detail: `${request.method} is not allowed here` };
    }
    this.logger.error({ err: exception, request_id: request.id, msg: 'unhandled error' });
    return {
      code: 'internal',
      detail: 'something went wrong on our side; quote the request_id if you report it',
    };
  }
}
