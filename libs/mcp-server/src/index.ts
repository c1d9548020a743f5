export {
  type McpSession,
  MCP_SESSIONS,
  type RequestId,
  type McpSessionStore,
  credentialOf,
  newSessionId,
  requestKey,
  MemoryMcpSessionStore,
} from './lib/mcp-sessions';
export { McpModule } from './lib/mcp.module';
