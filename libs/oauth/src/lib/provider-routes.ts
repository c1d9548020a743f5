/**
 * Which requests the authorization server (oidc-provider) answers itself. Only these reach it: anything else
 * under /oauth/ — a feature that is off (userinfo, logout, device flow), a method an endpoint does not take, our
 * own interaction pages — is this server's to answer, with a problem or a page, never the provider's plain-text
 * 404 or one of its built-in pages.
 */

/** The paths of the provider's endpoints (its `routes`): those it serves here, no more. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  registration: '/oauth/register',
} as const;

/** RFC 8414's metadata, and OpenID's name for the same document (some clients look only there). */
const METADATA_PATHS = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];

/** Method and path of each request the provider serves; `/*` stands for one path segment (an id). */
const SERVED = new Set<string>([
  `GET ${OAUTH_ROUTES.authorization}`,
  // Where the browser comes back to after our interaction pages: the authorization request resumed.
  `GET ${OAUTH_ROUTES.authorization}/*`,
  `POST ${OAUTH_ROUTES.token}`,
  `OPTIONS ${OAUTH_ROUTES.token}`,
  `POST ${OAUTH_ROUTES.revocation}`,
  `OPTIONS ${OAUTH_ROUTES.revocation}`,
  `POST ${OAUTH_ROUTES.introspection}`,
  `OPTIONS ${OAUTH_ROUTES.introspection}`,
  `POST ${OAUTH_ROUTES.registration}`,
  // RFC 7592's read of a registration, with the registration access token the client was given.
  `GET ${OAUTH_ROUTES.registration}/*`,
  ...METADATA_PATHS.flatMap((path) => [`GET ${path}`, `OPTIONS ${path}`]),
]);

const pathOf = (url: string) => {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

/** The first segments of those paths (`/oauth/`, `/.well-known/`): most requests are told apart by these alone. */
const SERVED_UNDER = [
  ...new Set(
    [...SERVED].map((line) => {
      const path = line.slice(line.indexOf(' ') + 1);
      return path.slice(0, path.indexOf('/', 1) + 1);
    }),
  ),
];

function isUnderServedPath(url: string): boolean {
  for (const prefix of SERVED_UNDER) if (url.startsWith(prefix)) return true;
  return false;
}

/** Whether the authorization server answers `method` `url` (a raw request line's target). */
export function isProviderRequest(method: string, url: string): boolean {
  // Asked of every request, most of them the API's.
  if (!isUnderServedPath(url)) return false;
  const path = pathOf(url);
  if (SERVED.has(`${method} ${path}`)) return true;
  const slash = path.lastIndexOf('/');
  return slash > 0 && slash < path.length - 1 && SERVED.has(`${method} ${path.slice(0, slash)}/*`);
}

/** A client registering itself (RFC 7591): each one is a stored record, so they are counted apart (B7). */
export function isClientRegistration(method: string, url: string): boolean {
  return method === 'POST' && pathOf(url) === OAUTH_ROUTES.registration;
}

/** An authorization request or its resumption: where the provider decides whose browser session it follows. */
export function isAuthorizationRequest(method: string, url: string): boolean {
  const path = pathOf(url);
  return (
    method === 'GET' &&
    (path === OAUTH_ROUTES.authorization || path.startsWith(`${OAUTH_ROUTES.authorization}/`))
  );
}
