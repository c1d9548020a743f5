import type { Device } from '@assistant/contracts';
import type { TokenEntity } from '@assistant/storage';

/** A device is its device token's record: what `/devices` lists, never the secret. */
export function presentDevice(t: TokenEntity): Device {
  return {
    id: t.id,
    name: t.name,
    scopes: t.scopes as Device['scopes'],
    token_prefix: t.tokenPrefix,
    created_at: t.createdAt.toISOString(),
    expires_at: t.expiresAt?.toISOString() ?? null,
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  };
}
