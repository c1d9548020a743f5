import {
  ENDPOINTS,
  pathMatcher,
  PROTOCOL_ROUTES,
  servedPath,
  type Endpoint,
  type ProtocolRoute,
} from '@assistant/contracts';
import type { ProblemAnswer } from './reply-problem';

/**
 * The methods a request path is served with, by the declared endpoints and protocol routes (HEAD wherever GET is,
 * which answers it too); empty for a path that none declares. A path that two declared paths match (`/pairing/claim` is
 * also `/pairing/{id}`) takes the methods of both, as the router routes both.
 */
export function declaredMethods(
  endpoints: readonly Endpoint[] = ENDPOINTS,
  protocols: readonly ProtocolRoute[] = Object.values(PROTOCOL_ROUTES),
): (path: string) => string[] {
  const byPath = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  const routes = [
    ...endpoints.map((endpoint) => ({ route: endpoint, methods: [endpoint.method] })),
    ...protocols.map((protocol) => ({ route: protocol, methods: protocol.methods })),
  ];
  for (const { route, methods } of routes) {
    const path = servedPath(route);
    const entry = byPath.get(path) ?? { pattern: pathMatcher(route), methods: new Set<string>() };
    byPath.set(path, entry);
    for (const method of methods) entry.methods.add(method);
  }
  const declared = [...byPath.values()];
  return (path) => {
    const methods = new Set(declared.filter((d) => d.pattern.test(path)).flatMap((d) => [...d.methods]));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}

const methodsAt = declaredMethods();

/**
 * What a request that no route took is told when its path is a declared one served with other methods: 405
 * with `Allow` (RFC 9110 §15.5.6). Null when the path is not declared at all: a 404, as before.
 */
export function methodNotAllowed(method: string, url: string): ProblemAnswer | null {
  const path = url.split('?')[0];
  const allowed = methodsAt(path);
  if (allowed.length === 0 || allowed.includes(method)) return null;
  const allow = allowed.join(', ');
  return {
    code: 'method_not_allowed',
    detail: `${method} is not allowed on ${path}; it takes ${allow}`,
    headers: { allow },
  };
}
