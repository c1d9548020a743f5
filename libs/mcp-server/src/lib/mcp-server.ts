import type { Server } from '@modelcontextprotocol/server';
import type { Principal } from '@assistant/auth';
import { joinAnd } from '@assistant/tool-kit';
import { type ToolCatalogue, serverPackageVersion } from '@assistant/server-kit';
import { callMcpTool, mcpToolOf } from './mcp-tools';
import type { McpSdk } from './mcp-sdk';

/** What an MCP client is told of the server: its families, as the catalogue has them. */
function instructionsOf(catalog: ToolCatalogue): string {
  return (
    `The tools of the user’s Assistant account (${joinAnd(catalog.families.map((family) => family.name))}), as ` +
    'the account has them and this token allows. Tools that change something say so; ask the user before ' +
    'calling them.'
  );
}

export interface McpServerDeps {
  catalog: ToolCatalogue;
  timeZone: string;
  toolTimeoutMs: number;
}

/**
 * The MCP server of one request (of either revision: the SDK builds one per request and drops it after): the
 * catalogue's tools, listed and called with the scopes of the principal that sent the request.
 */
export function mcpServerFor(sdk: McpSdk, principal: Principal, deps: McpServerDeps): Server {
  const server = new sdk.Server(
    { name: 'assistant', title: 'Assistant', version: serverPackageVersion() },
    { capabilities: { tools: { listChanged: true } }, instructions: instructionsOf(deps.catalog) },
  );
  server.setRequestHandler('tools/list', async () => ({
    tools: (await deps.catalog.forRun(principal)).tools.map(mcpToolOf),
  }));
  server.setRequestHandler('tools/call', async (call, ctx) => {
    const { tools } = await deps.catalog.forRun(principal);
    const tool = tools.find((t) => t.name === call.params.name);
    if (!tool) {
      return {
        isError: true,
        content: [
          {
            type: 'text' as const,
            text: `${call.params.name} is not one of this token's tools (tools/list has them): it is unknown, not set up on the account, or needs a scope the token lacks`,
          },
        ],
      };
    }
    return callMcpTool(tool, call.params.arguments, {
      userId: principal.userId,
      timeZone: deps.timeZone,
      signal: ctx.mcpReq.signal,
      timeoutMs: deps.toolTimeoutMs,
    });
  });
  return server;
}
