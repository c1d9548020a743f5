export { AuthModule } from './lib/auth.module';
export { AccessGuard } from './lib/access.guard';
export {
  admitPrincipal,
  authenticateBearer,
  bearerSecretOf,
  settledBearerOutcome,
  verifiedCaller,
  type BearerOutcome,
  type BearerVerifier,
} from './lib/bearer-authentication';
export {
  TokenService,
  principalMatches,
  type IssuedToken,
  type PrincipalMatch,
  type TokenServiceOptions,
} from './lib/token.service';
export { AuthError } from './lib/auth.errors';
export { storedTokenIdOf, type Principal } from './lib/principal';
export { Scopes, Public, CurrentPrincipal, ACCESS_METADATA, type RouteAccess } from './lib/scopes.decorator';
export {
  generateToken,
  checkTokenFormat,
  digestToken,
  TOKEN_PREFIXES,
  type GeneratedToken,
  type SecretTokenKind,
} from './lib/token-format';
export {
  generatePairingCode,
  digestPairingCode,
  PAIRING_CODE_ALPHABET,
  type GeneratedPairingCode,
} from './lib/pairing-code';
