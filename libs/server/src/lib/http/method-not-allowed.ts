import { ENDPOINTS, pathMatcher, servedPath, type Endpoint } from '@assistant/contracts';
import type { ProblemAnswer } from './reply-problem';

/**
 * The methods a request path is served with, by the declared endpoints (HEAD wherever GET is, which answers it
 * too); empty for a path that no endpoint declares. A path that two declared paths match (`/pairing/claim` is
 * also `/pairing/{id}`) takes the methods of both, as the router routes both.
 */
export function declaredMethods(endpoints: readonly Endpoint[] = ENDPOINTS): (path: string) => string[] {
  const byPath = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const endpoint of endpoints) {
    const path = servedPath(endpoint);
    const entry = byPath.get(path) ?? { pattern: pathMatcher(endpoint), methods: new Set<string>() };
    byPath.set(path, entry);
    entry.methods.add(endpoint.method);
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
