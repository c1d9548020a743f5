import { Module } from '@nestjs/common';
import { McpEndpoint } from './mcp-endpoint';

/** MCP over Streamable HTTP at /api/v1/mcp: the account's tools for any MCP client (SPEC §6). */
@Module({ providers: [McpEndpoint] })
export class McpModule {}
