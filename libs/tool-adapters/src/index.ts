export {
  defineTool,
  parseToolInput,
  ToolInputError,
  type ToolDefinition,
  type ToolContext,
  type ToolNotice,
} from './lib/define-tool';
export { allowedTools, withheldTools, type WithheldTool } from './lib/tool-registry';
export { memoryTools, type MemoryDriver } from './lib/memory/memory-tools';
