export { homeFamily } from './lib/home.family';
export type { HomeDriver } from './lib/home.driver';
