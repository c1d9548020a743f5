import { Module, type DynamicModule } from '@nestjs/common';
import { McpEndpoint } from './mcp-endpoint';

/**
 * MCP over Streamable HTTP at /api/v1/mcp: the account's tools for any MCP client (SPEC §6), in the current
 * revision and the 2025 ones; the sessions of the latter come from ClusterModule (MCP_SESSIONS).
 */
@Module({})
export class McpModule {
  /** @param catalogue the module that provides and exports the TOOL_CATALOGUE port. */
  static register(catalogue: DynamicModule): DynamicModule {
    return { module: McpModule, imports: [catalogue], providers: [McpEndpoint] };
  }
}
