import type { FastifyRequest } from 'fastify';

/**
 * Fields of a posted form (`application/x-www-form-urlencoded`, parsed by the server into strings, or arrays of
 * strings for a name sent more than once, such as checkboxes).
 */
type FormBody = Record<string, string | string[] | undefined>;

function bodyOf(request: FastifyRequest): FormBody {
  const body = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as FormBody) : {};
}

/** One text field: its first value, or '' when it was not sent. */
export function formText(request: FastifyRequest, name: string): string {
  const value = bodyOf(request)[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Every value sent under `name` (checkboxes). */
export function formList(request: FastifyRequest, name: string): string[] {
  const value = bodyOf(request)[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The name of the hidden field that carries the session's CSRF token in every form. */
export const CSRF_FIELD = 'csrf';
