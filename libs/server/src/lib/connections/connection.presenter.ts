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
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
