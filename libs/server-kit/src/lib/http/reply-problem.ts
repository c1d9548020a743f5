import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemOf, type ErrorCode, type FieldError } from '@assistant/contracts';

/** What an error answer says: the problem's code and detail, field errors, and headers such as Retry-After. */
export interface ProblemAnswer {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
}

/** Sends an RFC 9457 problem: used by the exception filter and by the hooks that answer before Nest does. */
export function replyWithProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  problem: ProblemAnswer,
): FastifyReply {
  const body = problemOf(problem.code, problem.detail, String(request.id), problem.errors);
  for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
  return reply.status(body.status).type('application/problem+json').send(body);
}

/** What a client sending anything but JSON is told, whichever layer notices. */
export const SEND_JSON = 'send the body as JSON with Content-Type: application/json';
