export { defineTool, type ToolDefinition, type ToolContext, type ToolNotice } from './lib/define-tool';
export { allowedTools } from './lib/tool-registry';
export { memoryTools, type MemoryDriver } from './lib/memory/memory-tools';
