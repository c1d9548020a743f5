import { Module, type DynamicModule } from '@nestjs/common';
import { WebSessionsModule } from '@assistant/server-kit';
import { ConnectionPages } from './connection.pages';
import { ConnectionsSection } from './connections-section';
import { OAuthConnectPages } from './oauth-connect.pages';

/**
 * The connections in the browser: the forms of every provider, Connect Google or Microsoft, and the Connections
 * section of /profile. The web module finds them by their marks (`@SitePages`, `@ProfileSection`).
 */
@Module({})
export class ConnectionPagesModule {
  /** @param tools the tools module, whose connections and OAuth connections these pages change. */
  static register(tools: DynamicModule): DynamicModule {
    return {
      module: ConnectionPagesModule,
      imports: [tools, WebSessionsModule],
      providers: [ConnectionPages, OAuthConnectPages, ConnectionsSection],
    };
  }
}
