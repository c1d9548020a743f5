import { Module } from '@nestjs/common';
import { ConnectionPages } from './connection.pages';
import { ConnectionsSection } from './connections-section';
import { OAuthConnectPages } from './oauth-connect.pages';

/**
 * The connections in the browser: the forms of every provider, Connect Google or Microsoft, and the Connections
 * section of /profile. The web module finds them by their marks (`@SitePages`, `@ProfileSection`).
 */
@Module({ providers: [ConnectionPages, OAuthConnectPages, ConnectionsSection] })
export class ConnectionPagesModule {}
