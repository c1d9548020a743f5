/** Where the API is served; every route not mounted at the root is under it. */
export const API_PREFIX = '/api/v1';

/** A `{param}` placeholder of a route's path; its name is the first group. */
export const PATH_PARAM = /\{(\w+)\}/g;

/** The path a route is served at, with `{param}` placeholders: `/api/v1/memories/{id}`, `/healthz`. */
export function servedPath(route: { path: string; mount?: 'api' | 'root' | undefined }): string {
  return route.mount === 'root' ? route.path : `${API_PREFIX}${route.path}`;
}

/** The `{param}` names of a path, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(PATH_PARAM)].map(([, name]) => name);
}

/** A route's path as routers name it, each `{param}` a `:param`: `/api/v1/queries/:id/events`. */
export function routePattern(route: { path: string; mount?: 'api' | 'root' | undefined }): string {
  return servedPath(route).replace(PATH_PARAM, ':$1');
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What concrete request paths a route's path matches (`/api/v1/memories/mem_1`): each `{param}` is one segment. */
export function pathMatcher(route: { path: string; mount?: 'api' | 'root' | undefined }): RegExp {
  const parts = servedPath(route).split(PATH_PARAM);
  return new RegExp(`^${parts.map((part, i) => (i % 2 === 1 ? '[^/]+' : escapeRegExp(part))).join('')}$`);
}
