import { AuthError } from './auth.errors';
import type { Principal } from './principal';

/** What bearer authentication concluded about a request: its caller, or the error that refuses it. */
export type BearerOutcome = { principal: Principal } | { refusal: unknown };

/**
 * What verifies a bearer secret (TokenService): the principal, or null when the secret is malformed, unknown,
 * revoked or expired; a value rather than a promise when the answer needs no database.
 */
export interface BearerVerifier {
  verify(secret: string): Principal | null | Promise<Principal | null>;
}

const OUTCOME = Symbol('assistant.bearerOutcome');

interface Authenticated {
  [OUTCOME]?: BearerOutcome;
}

interface RequestLike {
  headers?: Record<string, unknown>;
  query?: unknown;
  body?: unknown;
}

/** The refusals of a request without a usable bearer token (none, or not `Bearer <token>`) and of a bad token. */
const noToken = () => AuthError.invalidToken('send Authorization: Bearer <token>');
const refusedToken = () =>
  AuthError.invalidToken('the token is not valid: it is malformed, unknown, revoked or expired');

/**
 * The secret of `Authorization: Bearer <secret>`, read as passport's bearer strategy read it before (one space,
 * two parts, the scheme in any case): undefined when the header is missing or has another form.
 */
export function bearerSecretOf(request: RequestLike): string | undefined {
  const header = request.headers?.['authorization'];
  // "Bearer " and a secret without another space; the scheme as sent almost always, in any case otherwise.
  if (
    typeof header !== 'string' ||
    header.length <= BEARER.length ||
    header.indexOf(' ', BEARER.length) !== -1
  )
    return undefined;
  return header.startsWith(BEARER) || BEARER_ANY_CASE.test(header) ? header.slice(BEARER.length) : undefined;
}

const BEARER = 'Bearer ';
const BEARER_ANY_CASE = /^bearer /i;

/** Whether the request also names a token in its query string or body (SPEC §2 allows only the header). */
function tokenOutsideHeader(request: RequestLike): boolean {
  return namesToken(request.query) || namesToken(request.body);
}

function namesToken(where: unknown): boolean {
  return (
    typeof where === 'object' && where !== null && Boolean((where as { access_token?: unknown }).access_token)
  );
}

function settle(request: object, outcome: BearerOutcome): BearerOutcome {
  (request as Authenticated)[OUTCOME] = outcome;
  return outcome;
}

function settleVerified(request: object, principal: Principal | null): BearerOutcome {
  return settle(request, principal ? { principal } : { refusal: refusedToken() });
}

/**
 * Verifies the request's bearer token with `tokens` and keeps the outcome on the request: the rate limiter
 * authenticates each request as it arrives (a verified token gets a bucket of its own), and the access guard then
 * reads that outcome (`settledBearerOutcome`) instead of verifying a second time. The outcome comes at once,
 * without a promise, when the token service knows the answer without its database (a token it verified lately, a
 * malformed one).
 */
export function authenticateBearer(
  request: object,
  tokens: BearerVerifier,
): BearerOutcome | Promise<BearerOutcome> {
  const secret = bearerSecretOf(request as RequestLike);
  if (!secret || tokenOutsideHeader(request as RequestLike)) return settle(request, { refusal: noToken() });
  let verified: ReturnType<BearerVerifier['verify']>;
  try {
    verified = tokens.verify(secret);
  } catch (error) {
    return settle(request, { refusal: error });
  }
  if (!(verified instanceof Promise)) return settleVerified(request, verified);
  return verified.then(
    (principal) => settleVerified(request, principal),
    (error: unknown) => settle(request, { refusal: error }),
  );
}

/**
 * Admits a request as `principal` without a bearer token: for a signed-in browser of this server's own pages,
 * whose session cookie and CSRF header the server has checked (@assistant/web's web app). The guard then reads this
 * outcome as it reads a verified token's, so scopes are checked the same way. A request that carries an
 * Authorization header is never admitted this way: the bearer token, and only it, decides.
 */
export function admitPrincipal(request: { headers?: Record<string, unknown> }, principal: Principal): void {
  if (request.headers?.['authorization'] !== undefined) return;
  (request as Authenticated)[OUTCOME] = { principal };
}

/** The outcome of `authenticateBearer` on this request once it has settled; undefined before (or never run). */
export function settledBearerOutcome(request: object): BearerOutcome | undefined {
  return (request as Authenticated)[OUTCOME];
}

/**
 * The caller of a request whose token was verified; null when the token was refused (made up, malformed, unknown,
 * revoked or expired). Any other failure (the database) is thrown, as a failure to verify. A value rather than a
 * promise when the outcome is known already or needs no database.
 */
export function verifiedCaller(
  request: object,
  tokens: BearerVerifier,
): Principal | null | Promise<Principal | null> {
  const outcome = settledBearerOutcome(request) ?? authenticateBearer(request, tokens);
  return outcome instanceof Promise ? outcome.then(callerOf) : callerOf(outcome);
}

function callerOf(outcome: BearerOutcome): Principal | null {
  if ('principal' in outcome) return outcome.principal;
  if (outcome.refusal instanceof AuthError) return null;
  throw outcome.refusal;
}
