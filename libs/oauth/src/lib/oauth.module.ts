import { Module } from '@nestjs/common';
import { AuthorizationServerHost } from './authorization-server.host';
import { Interactions } from './interactions';
import { IntegrationActivity } from './integration-activity';
import { IntegrationsController } from './integrations.controller';
import { IntegrationsService } from './integrations.service';
import { ProviderSessions } from '@assistant/server-kit';
import { ResourceMetadataController } from './resource-metadata.controller';

/**
 * Third-party access (SPEC §2): the OAuth authorization server at /oauth/, its consent pages, this API's
 * protected resource metadata, and the account's integrations (`/integrations`).
 */
@Module({
  controllers: [IntegrationsController, ResourceMetadataController],
  providers: [
    AuthorizationServerHost,
    Interactions,
    IntegrationsService,
    IntegrationActivity,
    ProviderSessions,
  ],
  exports: [AuthorizationServerHost, IntegrationsService, ProviderSessions],
})
export class OAuthModule {}
