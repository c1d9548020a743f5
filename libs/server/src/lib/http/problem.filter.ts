import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode, FieldError } from '@assistant/contracts';
import { AuthError } from '@assistant/auth';
import { StorageError } from '@assistant/storage';
import { ApiError, toProblem } from './api-error';

interface Mapped {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

/** Fastify's own errors for bodies it could not take, by their stable `code`. */
const FASTIFY_ERRORS: Record<string, (error: Error) => Mapped> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => ({ code: 'payload_too_large', detail: 'the body is larger than 64 KiB' }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => ({
    code: 'unsupported_media_type',
    detail: 'send the body as JSON with Content-Type: application/json',
  }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => invalidBody('the body is empty; send a JSON object'),
  FST_ERR_CTP_INVALID_JSON_BODY: (e) => invalidBody(`the body is not valid JSON: ${e.message}`),
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
    const problem = toProblem(mapped.code, mapped.detail, String(request.id), mapped.errors);
    for (const [name, value] of Object.entries(mapped.headers ?? {})) reply.header(name, value);
    reply.status(problem.status).type('application/problem+json').send(problem);
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
    const fastifyCode = (exception as { code?: unknown })?.code;
    if (typeof fastifyCode === 'string' && FASTIFY_ERRORS[fastifyCode]) {
      return FASTIFY_ERRORS[fastifyCode](exception as Error);
    }
    if (exception instanceof SyntaxError && (exception as { statusCode?: number }).statusCode === 400) {
      return invalidBody(`the body is not valid JSON: ${exception.message}`);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404)
        return { code: 'not_found', detail: `no route for ${request.method} ${request.url.split('?')[0]}` };
      if (status === 405)
        return { code: 'method_not_allowed', detail: `${request.method} is not allowed here` };
    }
    this.logger.error({ err: exception, request_id: request.id }, 'unhandled error');
    return {
      code: 'internal',
      detail: 'something went wrong on our side; quote the request_id if you report it',
    };
  }
}
