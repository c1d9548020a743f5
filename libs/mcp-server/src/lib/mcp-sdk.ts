import type * as ServerSdk from '@modelcontextprotocol/server';

/** The parts of the MCP server SDK (2.x) the endpoint uses. */
export type McpSdk = Pick<
  typeof ServerSdk,
  'Server' | 'createMcpHandler' | 'legacyStatelessFallback' | 'isLegacyRequest' | 'isInitializeRequest'
>;

let loaded: McpSdk | undefined;

/**
 * The MCP SDK, loaded by the first MCP request rather than at start-up: it is one of the largest things the server
 * would load, and most servers never see an MCP client. `require`, not `import()`: the server is CommonJS, and the
 * SDK's CommonJS build spares the slower ESM loader.
 */
export function mcpSdk(): McpSdk {
  loaded ??= require('@modelcontextprotocol/server') as typeof ServerSdk;
  return loaded;
}
