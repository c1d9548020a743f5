import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode, FieldError } from '@assistant/contracts';
import { toProblem } from './api-error';

/** Sends an RFC 9457 problem: used by the exception filter and by the hooks that answer before Nest does. */
export function replyWithProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: { code: ErrorCode; detail: string; errors?: FieldError[]; headers?: Record<string, string> },
): FastifyReply {
  const body = toProblem(problem.code, problem.detail, String(request.id), problem.errors);
  for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
  return reply.status(body.status).type('application/problem+json').send(body);
}
