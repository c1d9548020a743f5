import { z } from 'zod';
import { loginNeutral, pinHost, type ProviderDefinition } from '@assistant/tool-kit';
import type { EmailDriver } from './email.driver';
import { ImapSmtpMailbox } from './imap-smtp.driver';

const port = z.number().int().min(1).max(65_535);
/** Where and as whom a mailbox logs in, whatever the credentials (a password here, OAuth in `imap-oauth`). */
export const mailboxSettings = z.object({
  imap_host: z.string().min(1).describe('the server mail is read from, e.g. imap.fastmail.com'),
  imap_port: port.default(993).describe('993 with TLS; 143 without'),
  imap_tls: z.boolean().default(true).describe('TLS from the first byte (turn off only on your own network)'),
  smtp_host: z.string().min(1).describe('the server mail is sent through, e.g. smtp.fastmail.com'),
  smtp_port: port.default(587).describe('587 (STARTTLS) or 465 (TLS)'),
  smtp_tls: z.boolean().default(true).describe('TLS or STARTTLS (turn off only on your own network)'),
  username: z.string().min(1).describe('the login, often the email address'),
  // What the mail it sends says it is from: not where or as whom it logs in.
  from_address: loginNeutral(z.email().describe('the address mail you send comes from')),
});
const secrets = z.object({ password: z.string().min(1).describe('the password, or an app password') });

/** Any IMAP and SMTP provider (Fastmail, Gmail with an app password, a self-hosted Dovecot…). */
export const imapProvider: ProviderDefinition<EmailDriver, typeof mailboxSettings, typeof secrets> = {
  name: 'imap',
  description: 'A mailbox over IMAP and SMTP',
  settings: mailboxSettings,
  secrets,
  open: async ({ settings: s, secrets: k }, env) => {
    const [imap, smtp] = await Promise.all([pinHost(s.imap_host, env), pinHost(s.smtp_host, env)]);
    return ImapSmtpMailbox.open(s, { password: k.password }, { imap, smtp });
  },
  test: async (driver) => (driver as ImapSmtpMailbox).check(),
};
