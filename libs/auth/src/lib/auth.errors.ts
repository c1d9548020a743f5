import { ProblemError, type Scope } from '@assistant/contracts';

/**
 * Authentication and authorisation failures: 401/403 per SPEC §2, with the `WWW-Authenticate` challenge that
 * tells the client which of the two it is.
 */
export class AuthError extends ProblemError {
  declare readonly code: 'invalid_token' | 'insufficient_scope';

  private constructor(code: AuthError['code'], detail: string, challenge: string) {
    super(code, detail, { headers: { 'www-authenticate': challenge } });
  }

  static invalidToken(detail: string): AuthError {
    return new AuthError('invalid_token', detail, 'Bearer realm="assistant", error="invalid_token"');
  }

  static insufficientScope(scope: Scope): AuthError {
    return new AuthError(
      'insufficient_scope',
      `this call needs a token with the ${scope} scope`,
      `Bearer realm="assistant", error="insufficient_scope", scope="${scope}"`,
    );
  }
}
