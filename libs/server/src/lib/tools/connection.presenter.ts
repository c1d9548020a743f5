import type { Connection } from '@assistant/contracts';
import type { StoredConnection } from '@assistant/storage';

/** A connection as the API shows it: everything but its secrets. */
export function presentConnection(c: StoredConnection): Connection {
  return {
    id: c.id,
    family: c.family as Connection['family'],
    provider: c.provider,
    name: c.name,
    settings: c.settings,
    status: c.status,
    last_error: c.lastError,
    default: c.isDefault,
    built_in: false,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/**
 * A connection the account has without adding it: it works as long as the account exists, and never changes. It
 * is its family's default while the account has no connection of the family of its own.
 */
export function presentDefaultConnection(
  c: { id: string; family: string; provider: string; name: string; settings: Record<string, unknown> },
  accountCreatedAt: Date,
  isDefault: boolean,
): Connection {
  const stored = {
    ...c,
    isDefault,
    status: 'ok',
    lastError: null,
    createdAt: accountCreatedAt,
    updatedAt: accountCreatedAt,
  };
  return { ...presentConnection(stored as StoredConnection), built_in: true };
}
