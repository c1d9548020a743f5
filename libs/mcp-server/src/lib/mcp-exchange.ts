import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Server } from '@modelcontextprotocol/server';
import type { Principal } from '@assistant/auth';

/** One HTTP request to the MCP endpoint, its caller verified, on its way to the leg of its protocol revision. */
export interface McpExchange {
  request: FastifyRequest;
  reply: FastifyReply;
  principal: Principal;
  /** The request as the SDK takes it; its signal aborts when the client leaves or the server shuts down. */
  web: Request;
  /** The JSON body Fastify read (undefined for GET and DELETE). */
  body: unknown;
}

/** The MCP server that answers one request of this principal (tools listed and called with its scopes). */
export type McpServerOf = (principal: Principal) => Server;

/** The JSON-RPC requests (not notifications or responses) of a body: one message or a batch. */
export function requestsOf(body: unknown): Array<{ id: string | number; method: string }> {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.filter(
    (message): message is { id: string | number; method: string } =>
      typeof message === 'object' &&
      message !== null &&
      typeof (message as { method?: unknown }).method === 'string' &&
      ['string', 'number'].includes(typeof (message as { id?: unknown }).id),
  );
}

/** A JSON-RPC error answer of our own (not one the SDK makes), in the shape the SDK's are. */
export function sendJsonRpcError(
  reply: FastifyReply,
  status: number,
  id: string | number | null,
  code: number,
  message: string,
): FastifyReply {
  return reply.status(status).type('application/json').send({ jsonrpc: '2.0', id, error: { code, message } });
}
