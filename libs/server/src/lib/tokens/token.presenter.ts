import type { PersonalToken } from '@assistant/contracts';
import type { TokenEntity } from '@assistant/storage';

/** A token's record as the API shows it (personal tokens, and devices, which are device tokens): never the secret. */
export function presentToken(t: TokenEntity): PersonalToken {
  return {
    id: t.id,
    name: t.name,
    scopes: t.scopes as PersonalToken['scopes'],
    token_prefix: t.tokenPrefix,
    created_at: t.createdAt.toISOString(),
    expires_at: t.expiresAt?.toISOString() ?? null,
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  };
}
