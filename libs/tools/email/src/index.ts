export { emailFamily } from './lib/email.family';
export type { EmailDriver } from './lib/email.driver';
export { imapOAuthProvider } from './lib/imap-oauth.provider';
