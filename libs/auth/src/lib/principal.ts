import type { Scope, TokenKind } from '@assistant/contracts';

/** Who is calling: the user and the token they called with. Attached to the request by the bearer strategy. */
export interface Principal {
  userId: string;
  tokenId: string;
  kind: TokenKind;
  scopes: Scope[];
  clientId?: string;
  /** The OAuth grant an `oauth_access` token was issued under (revoking the integration revokes it). */
  grantId?: string;
  expiresAt: Date | null;
}

/**
 * The stored token a principal acts with, which becomes the parent of what it mints or pairs: a personal or device
 * token's id; null for an OAuth access token, which is the authorization server's (revoking the application
 * revokes it).
 */
export function storedTokenIdOf(principal: Principal): string | null {
  return principal.kind === 'oauth_access' ? null : principal.tokenId;
}
