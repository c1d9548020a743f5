import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { OAuthModule } from '@assistant/oauth';
import { PageRoutes } from './page-routes';
import { PasswordAccounts } from './password-accounts';
import { PasswordMail } from './password-mail';
import { PasswordPages } from './password.pages';
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
  imports: [OAuthModule, DiscoveryModule],
  providers: [
    WebSessions,
    PasswordAccounts,
    PasswordMail,
    PasswordPages,
    SignInPages,
    ProfilePages,
    IntegrationsSection,
    PageRoutes,
  ],
  exports: [WebSessions],
})
export class WebModule {}
