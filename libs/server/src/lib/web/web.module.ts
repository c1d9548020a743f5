import { Global, Module } from '@nestjs/common';
import { OAuthModule } from '../oauth/oauth.module';
import { PageRoutes } from './page-routes';
import { PasswordAccounts } from './password-accounts';
import { PasswordMail } from './password-mail';
import { PasswordPages } from './password.pages';
import { ConnectionPages } from './profile/connection.pages';
import { OAuthConnectPages } from './profile/oauth-connect.pages';
import { IntegrationsSection } from './profile/integrations-section';
import { ProfilePages } from './profile/profile.pages';
import { SignInPages } from './sign-in.pages';
import { WebSessions } from '@assistant/server-kit';

/**
 * The pages outside /api/v1: sign-up and sign-in (hosted), the one-time sign-in link (self-hosted), sign-out and
 * /profile. Global, so that other features' pages (the OAuth consent page) use the same WebSessions.
 */
@Global()
@Module({
  imports: [OAuthModule],
  providers: [
    WebSessions,
    PasswordAccounts,
    PasswordMail,
    PasswordPages,
    SignInPages,
    ProfilePages,
    IntegrationsSection,
    ConnectionPages,
    OAuthConnectPages,
    PageRoutes,
  ],
  exports: [WebSessions],
})
export class WebModule {}
