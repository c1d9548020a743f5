export { filesFamily } from './lib/files.family';
export type { FilesDriver } from './lib/files.driver';
