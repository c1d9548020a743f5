export { webFamily } from './lib/web.family';
export type { WebDriver } from './lib/web.driver';
