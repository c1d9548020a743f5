import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type PublicAddress, PAGE_HEADERS } from '@assistant/server-kit';

/**
 * How the provider must see a request: as it reached this server's public address (`ASSISTANT_PUBLIC_URL`, or
 * where it listens), whatever its Host header says. The provider builds its endpoints' URLs, and decides whether
 * its cookies are Secure, from the request's host and scheme (Koa's, read from X-Forwarded-Host and
 * X-Forwarded-Proto since its `proxy` is on); these headers are always set from the public address, so that a
 * client can never choose them (B4). The client address is the one Fastify settled on (which trusts
 * X-Forwarded-For only behind a trusted proxy).
 */
function forwardedFrom(request: FastifyRequest, address: PublicAddress): Record<string, string> {
  const url = new URL(address.url);
  return {
    'x-forwarded-host': url.host,
    'x-forwarded-proto': url.protocol.slice(0, -1),
    'x-forwarded-for': request.ip,
  };
}

/** Hands the request over to the provider as received at the public address (Fastify has let go of it). */
export function handedOverAtPublicAddress(request: FastifyRequest, address: PublicAddress): IncomingMessage {
  Object.assign(request.raw.headers, forwardedFrom(request, address));
  return request.raw;
}

/**
 * The request as the provider sees it, for a page of ours that asks the provider about it (an interaction): a
 * view with the public address's headers, leaving Fastify's own request (its protocol, its client address) as
 * it was.
 */
export function viewedAtPublicAddress(request: FastifyRequest, address: PublicAddress): IncomingMessage {
  const view = Object.create(request.raw) as IncomingMessage;
  Object.defineProperty(view, 'headers', {
    value: { ...request.raw.headers, ...forwardedFrom(request, address) },
  });
  return view;
}

/**
 * The Node response the provider answers on, carrying what Fastify had put on the reply before letting go of it
 * (the request id, the rate-limit headers, nosniff, no-store) and the pages' headers (no framing, no scripts, no
 * referrer): the provider's answers are redirects, JSON and our error page, and all may carry them.
 */
export function providerResponse(reply: FastifyReply): ServerResponse {
  const { raw } = reply;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) raw.setHeader(name, value as string | string[] | number);
  }
  for (const [name, value] of Object.entries(PAGE_HEADERS)) raw.setHeader(name, value);
  return raw;
}
