import type * as ServerModule from '@modelcontextprotocol/sdk/server/index.js';
import type * as TransportModule from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

/** The parts of the MCP SDK the endpoint uses. */
export interface McpSdk {
  Server: typeof ServerModule.Server;
  StreamableHTTPServerTransport: typeof TransportModule.StreamableHTTPServerTransport;
  CallToolRequestSchema: typeof TypesModule.CallToolRequestSchema;
  ListToolsRequestSchema: typeof TypesModule.ListToolsRequestSchema;
}

let loaded: McpSdk | undefined;

/**
 * The MCP SDK, loaded by the first MCP request rather than at start-up: it is one of the largest things the server
 * would load (~6 % of its start-up), and most servers never see an MCP client. `require`, not `import()`: the
 * server is CommonJS, and `import()` would load the SDK's ESM build, through the slower ESM loader.
 */
export function mcpSdk(): McpSdk {
  loaded ??= {
    ...(require('@modelcontextprotocol/sdk/server/index.js') as typeof ServerModule),
    ...(require('@modelcontextprotocol/sdk/server/streamableHttp.js') as typeof TransportModule),
    ...(require('@modelcontextprotocol/sdk/types.js') as typeof TypesModule),
  };
  return loaded;
}
