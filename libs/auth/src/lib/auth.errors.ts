import type { Scope } from '@assistant/contracts';

/** Authentication and authorisation failures; the server's filter turns them into 401/403 per SPEC §2. */
export class AuthError extends Error {
  private constructor(
    readonly code: 'invalid_token' | 'insufficient_scope',
    message: string,
    readonly requiredScope?: Scope,
  ) {
    super(message);
    this.name = 'AuthError';
  }

  static invalidToken(detail: string): AuthError {
    return new AuthError('invalid_token', detail);
  }

  static insufficientScope(scope: Scope): AuthError {
    return new AuthError('insufficient_scope', `this call needs a token with the ${scope} scope`, scope);
  }

  /** The value of `WWW-Authenticate` for this failure. */
  get challenge(): string {
    return this.code === 'invalid_token'
      ? 'Bearer realm="assistant", error="invalid_token"'
      : `Bearer realm="assistant", error="insufficient_scope", scope="${this.requiredScope}"`;
  }
}
