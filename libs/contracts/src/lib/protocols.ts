import { servedPath } from './paths';

/**
 * An HTTP surface that speaks a protocol of its own rather than this API's JSON operations: it is declared here
 * once, like ROUTES, so that the OpenAPI document lists it with its methods and auth, the server refuses to start
 * when it does not serve it, and a request with another method is answered 405. It is not in ROUTES because it is
 * no operation: one path answers every request of the protocol (no request or response schema of ours, no client
 * method), and any valid token may open it, the tools it lists then being filtered by the token's scopes.
 */
export interface ProtocolRoute {
  /** Relative to /api/v1. */
  path: string;
  methods: readonly ('GET' | 'POST' | 'DELETE')[];
  /** `bearer`: any valid token of this server (what the token may do is decided inside the protocol). */
  auth: 'bearer';
  tag: string;
  summary: string;
  /** Where the protocol is specified. */
  specification: string;
}

export const PROTOCOL_ROUTES = {
  mcp: {
    path: '/mcp',
    methods: ['POST', 'GET', 'DELETE'],
    auth: 'bearer',
    tag: 'mcp',
    summary:
      "The Model Context Protocol over Streamable HTTP (revision 2026-07-28, and the 2025 revisions for older clients): the account's tools, listed and called within the token's scopes; change notifications on a GET or `subscriptions/listen` stream. A 401 names this API's protected resource metadata, from which an MCP client signs in by OAuth.",
    specification: 'https://modelcontextprotocol.io/specification',
  },
} as const satisfies Record<string, ProtocolRoute>;

export type ProtocolName = keyof typeof PROTOCOL_ROUTES;

/** Where MCP is served: `/api/v1/mcp`. */
export const MCP_PATH = servedPath(PROTOCOL_ROUTES.mcp);
