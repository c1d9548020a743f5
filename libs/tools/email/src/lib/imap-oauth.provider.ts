import { z } from 'zod';
import { accessTokensOf, pinHost, type ProviderDefinition } from '@assistant/tool-kit';
import type { EmailDriver } from './email.driver';
import { ImapSmtpMailbox } from './imap-smtp.driver';
import { mailboxSettings } from './imap.provider';

/** No secret of its own: the server holds the connection's OAuth grant and gives the driver its token source. */
const secrets = z.object({});

/**
 * A mailbox whose IMAP and SMTP logins take an OAuth access token (XOAUTH2, OAUTHBEARER): Gmail, Outlook.com,
 * Microsoft 365. Made by "Connect Google" / "Connect Microsoft", with the settings their declarations give
 * (`googleOAuthClient`, `microsoftOAuthClient` in the tool kit), never by a form.
 */
export const imapOAuthProvider: ProviderDefinition<EmailDriver, typeof mailboxSettings, typeof secrets> = {
  name: 'imap-oauth',
  description: 'A mailbox over IMAP and SMTP, signed in with OAuth (Google, Microsoft)',
  settings: mailboxSettings,
  secrets,
  open: async ({ settings: s }, env) => {
    const accessTokens = accessTokensOf(env);
    const [imap, smtp] = await Promise.all([pinHost(s.imap_host, env), pinHost(s.smtp_host, env)]);
    return ImapSmtpMailbox.open(s, { accessTokens }, { imap, smtp });
  },
  test: async (driver) => (driver as ImapSmtpMailbox).check(),
};
