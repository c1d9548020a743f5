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
