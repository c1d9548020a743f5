export { webFamily } from './lib/web.family';
export type { WebDriver } from './lib/web.driver';
// The pinned, address-checked GET, for the server's own fetches of URLs a client names (OAuth client metadata).
export { checkedGet, parseHttpUrl, readBody, WebFetchError } from './lib/checked-get';
