import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PublicAddress } from '../http/public-address';
import { PAGE_HEADERS } from '../web/page';

/**
 * Shows the provider a request as it reached this server's public address (`ASSISTANT_PUBLIC_URL`, or where it
 * listens), whatever its Host header says: the provider builds its endpoints' URLs, and decides whether its
 * cookies are Secure, from the request's host and scheme (Koa's, read from X-Forwarded-Host and
 * X-Forwarded-Proto when `proxy` is on, as it is here). Those headers are set here on every request it is given,
 * so that a client cannot choose them (B4); the client address is the one Fastify settled on (which trusts
 * X-Forwarded-For only behind a trusted proxy).
 */
export function atPublicAddress(request: FastifyRequest, address: PublicAddress): IncomingMessage {
  const url = new URL(address.url);
  const { raw } = request;
  raw.headers['x-forwarded-host'] = url.host;
  raw.headers['x-forwarded-proto'] = url.protocol.slice(0, -1);
  raw.headers['x-forwarded-for'] = request.ip;
  return raw;
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
