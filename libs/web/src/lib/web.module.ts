import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { WebSessionsModule } from '@assistant/server-kit';
import { PageRoutes } from './page-routes';
import { PasswordAccounts } from './password-accounts';
import { PasswordMail } from './password-mail';
import { PasswordPages } from './password.pages';
import { ProfilePages } from './profile/profile.pages';
import { SignInPages } from './sign-in.pages';

/**
 * The pages outside /api/v1: sign-up and sign-in (hosted), the one-time sign-in link (self-hosted), sign-out and
 * /profile, whose sections and every page route are found by their marks (`@ProfileSection`, `@SitePages`) in
 * whichever module provides them. Other features' pages share its sessions through the kit's WebSessionsModule.
 */
@Module({
  imports: [WebSessionsModule, DiscoveryModule],
  providers: [PasswordAccounts, PasswordMail, PasswordPages, SignInPages, ProfilePages, PageRoutes],
})
export class WebModule {}
