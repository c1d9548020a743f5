export { CSRF_HEADER } from './lib/app/browser-credentials';
export { WebAppModule } from './lib/app/web-app.module';
export { normalEmail } from './lib/password-accounts';
export { PASSWORD_LINK_LIFETIMES_MS, issuePasswordLink } from './lib/password-links';
export { PASSWORD_MAILS_PER_ADDRESS, LINK_MAILED } from './lib/password.pages';
export { hashPassword } from './lib/passwords';
export { SIGN_IN_LINK_LIFETIME_MS, issueSignInLink, useSignInLink } from './lib/sign-in-links';
export { WebModule } from './lib/web.module';
