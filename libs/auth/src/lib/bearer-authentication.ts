import passport from 'passport';
import { AuthError } from './auth.errors';
import type { Principal } from './principal';

/** The name under which BearerStrategy registers with passport. */
export const BEARER_STRATEGY = 'bearer';

/** What passport's bearer strategy concluded about a request: its caller, or the error that refuses it. */
export type BearerOutcome = { principal: Principal } | { refusal: unknown };

const OUTCOME = Symbol('assistant.bearerOutcome');

interface Authenticated {
  [OUTCOME]?: BearerOutcome;
}

/**
 * Runs passport's bearer strategy (BearerStrategy) on a request and keeps its outcome on the request: the rate
 * limiter authenticates each request as it arrives (a verified token gets a bucket of its own), and the access
 * guard then reads that outcome (`settledBearerOutcome`) instead of running passport a second time.
 */
export function authenticateBearer(request: object, response: unknown = {}): Promise<BearerOutcome> {
  return new Promise((resolve) => {
    const settle = (outcome: BearerOutcome) => {
      (request as Authenticated)[OUTCOME] = outcome;
      resolve(outcome);
    };
    const authenticate = passport.authenticate(
      BEARER_STRATEGY,
      { session: false },
      (error: unknown, principal: Principal | false | undefined) =>
        settle(
          error
            ? { refusal: error }
            : principal
              ? { principal }
              : { refusal: AuthError.invalidToken('send Authorization: Bearer <token>') },
        ),
    ) as (request: object, response: unknown, next: (error?: unknown) => void) => void;
    authenticate(request, response, (error) => settle({ refusal: error }));
  });
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
 * The caller of a request whose token passport verified; null when it refused the token (made up, malformed,
 * unknown, revoked or expired). Any other failure (the database) is thrown, as a failure to verify.
 */
export async function verifiedCaller(request: object): Promise<Principal | null> {
  const outcome = settledBearerOutcome(request) ?? (await authenticateBearer(request));
  if ('principal' in outcome) return outcome.principal;
  if (outcome.refusal instanceof AuthError) return null;
  throw outcome.refusal;
}
