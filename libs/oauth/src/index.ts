export { registerClient, listClients } from './lib/clients';
export { IntegrationsService } from './lib/integrations.service';
export { OAuthModule } from './lib/oauth.module';
export { isProviderRequest, isClientRegistration } from './lib/provider-routes';
