import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Headers of every response, including those written straight to the socket: browsers must never guess a type
 * other than the one sent (a JSON body with user text must not be sniffed as HTML).
 */
export const EVERY_RESPONSE_HEADERS = { 'x-content-type-options': 'nosniff' } as const;

/**
 * The default for every response unless its route says otherwise (the OpenAPI document may be cached): answers
 * carry a user's data, and a shared cache or a browser's disk must not keep them.
 */
export const NOT_CACHED_HEADERS = { 'cache-control': 'no-store' } as const;

/** The headers above, merged once rather than on every request. */
const DEFAULT_HEADERS = { ...EVERY_RESPONSE_HEADERS, ...NOT_CACHED_HEADERS };

/** Puts the request id and the headers above on a reply, before anything can answer it. */
export function prepareReply(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id).headers(DEFAULT_HEADERS);
}
