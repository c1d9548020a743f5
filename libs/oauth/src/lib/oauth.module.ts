import { Module } from '@nestjs/common';
import { AuthorizationServerHost } from './authorization-server.host';
import { Interactions } from './interactions';
import { IntegrationActivity } from './integration-activity';
import { IntegrationsController } from './integrations.controller';
import { IntegrationsService } from './integrations.service';
import { WebSessionsModule } from '@assistant/server-kit';
import { IntegrationsSection } from './integrations-section';
import { ResourceMetadataController } from './resource-metadata.controller';

/**
 * Third-party access (SPEC §2): the OAuth authorization server at /oauth/, its consent pages, this API's
 * protected resource metadata, and the account's integrations (`/integrations`, and the Applications section of
 * /profile, which the web pages find by its marks).
 */
@Module({
  imports: [WebSessionsModule],
  controllers: [IntegrationsController, ResourceMetadataController],
  providers: [
    AuthorizationServerHost,
    Interactions,
    IntegrationsService,
    IntegrationActivity,
    IntegrationsSection,
  ],
  exports: [AuthorizationServerHost, IntegrationsService],
})
export class OAuthModule {}
