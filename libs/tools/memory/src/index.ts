export { memoryFamily } from './lib/memory.family';
export type { MemoryDriver } from './lib/memory.driver';
