import { Injectable } from '@nestjs/common';
import type { ConnectionsRepository } from '@assistant/storage';
import { InjectRepository } from '@assistant/server-kit';
import type { ActiveConnection, ConnectionSource } from './connection-source';
import { SecretBox } from './secret-box';

/** The catalogue's view of the connections resource: an account's working connections, secrets opened. */
@Injectable()
export class StoredConnections implements ConnectionSource {
  constructor(
    @InjectRepository('connections') private readonly connections: ConnectionsRepository,
    private readonly box: SecretBox,
  ) {}

  async activeConnections(userId: string): Promise<ActiveConnection[]> {
    const stored = await this.connections.list(userId);
    // A connection that needs reconnecting stays: its tools answer that it does, with the link (OAuthConnections).
    return stored
      .filter((c) => c.status === 'ok' || c.status === 'needs_reauth')
      .map((c) => ({
        id: c.id,
        family: c.family,
        provider: c.provider,
        name: c.name,
        isDefault: c.isDefault,
        settings: c.settings,
        secrets: this.box.open(c.sealedSecrets, userId),
        updatedAt: c.updatedAt,
        status: c.status,
      }));
  }
}
