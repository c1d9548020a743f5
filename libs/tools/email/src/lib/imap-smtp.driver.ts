import type { ImapFlow, MessageEnvelopeObject, SearchObject } from 'imapflow';
import type { Transporter } from 'nodemailer';
import {
  ConnectionTestError,
  NeedsReauthError,
  type AccessTokenSource,
  type PinnedHost,
} from '@assistant/tool-kit';
import {
  EMAIL_LIMITS,
  EmailError,
  type EmailDriver,
  type Message,
  type MessageSummary,
  type Outgoing,
  type SearchCriteria,
} from './email.driver';
import { senderSearch } from './sender-match';

export interface MailboxSettings {
  imap_host: string;
  imap_port: number;
  imap_tls: boolean;
  smtp_host: string;
  smtp_port: number;
  smtp_tls: boolean;
  username: string;
  from_address: string;
}

/**
 * How the mailbox logs in: a password (IMAP LOGIN/PLAIN, SMTP PLAIN/LOGIN), or the access tokens of a connection
 * made by OAuth (IMAP OAUTHBEARER or XOAUTH2, SMTP XOAUTH2), which a refused login renews once.
 */
export type MailboxCredentials = { password: string } | { accessTokens: AccessTokenSource };

const TIMEOUT_MS = 20_000;

type ProvisionDone = (error: Error | null, token?: string, expires?: number) => void;

/** How many of the newest messages the server finds by one word of a sender's name are checked for the whole. */
const SENDER_CANDIDATES = 500;

const addressOf = (a?: { name?: string; address?: string }) =>
  a ? (a.name ? `${a.name} <${a.address ?? ''}>` : (a.address ?? '')) : '';

function parseId(id: string): { folder: string; uid: number } {
  const colon = id.lastIndexOf(':');
  const uid = Number(id.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(uid) || uid <= 0)
    throw new EmailError(`"${id}" is not a message id (folder:uid)`);
  return { folder: id.slice(0, colon), uid };
}

/**
 * A mailbox on any IMAP and SMTP provider. One IMAP session per connection, logged in once and kept (the
 * server's driver pool closes it when idle); it logs in again if the server dropped it. Sent mail is also
 * appended to the Sent folder, as mail clients do.
 */
export class ImapSmtpMailbox implements EmailDriver {
  private imap?: ImapFlow;
  /** Logins so far: the pool's reuse is observable (a test counts them). */
  logins = 0;

  private constructor(
    private readonly settings: MailboxSettings,
    private readonly credentials: MailboxCredentials,
    private readonly smtp: Transporter,
    private readonly imapHost: PinnedHost,
  ) {}

  /**
   * `hosts` are where the IMAP and SMTP clients connect (the checked addresses on the hosted API, with the names
   * for TLS); by default the settings' names.
   */
  static async open(
    settings: MailboxSettings,
    credentials: MailboxCredentials,
    hosts: { imap: PinnedHost; smtp: PinnedHost } = {
      imap: { host: settings.imap_host },
      smtp: { host: settings.smtp_host },
    },
  ): Promise<ImapSmtpMailbox> {
    const nodemailer = await import('nodemailer');
    const smtp = (nodemailer.default ?? nodemailer).createTransport({
      host: hosts.smtp.host,
      ...(hosts.smtp.servername ? { tls: { servername: hosts.smtp.servername } } : {}),
      port: settings.smtp_port,
      secure: settings.smtp_tls && settings.smtp_port === 465,
      requireTLS: settings.smtp_tls && settings.smtp_port !== 465,
      ignoreTLS: !settings.smtp_tls,
      auth:
        'password' in credentials
          ? { user: settings.username, pass: credentials.password }
          : { type: 'OAuth2', user: settings.username },
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
    });
    const mailbox = new ImapSmtpMailbox(settings, credentials, smtp, hosts.imap);
    if ('accessTokens' in credentials) {
      // nodemailer asks before each login; the source decides whether its token is still good (an expiry in the
      // past keeps nodemailer from caching it), and after a refusal (`withSmtpLogin`) it is told which one failed.
      smtp.set('oauth2_provision_cb', (_user: string, renew: boolean, done: ProvisionDone) => {
        const rejected = renew || mailbox.smtpRefused ? mailbox.smtpToken : undefined;
        mailbox.smtpRefused = false;
        credentials.accessTokens.accessToken(rejected ? { rejected } : {}).then(
          (token) => done(null, (mailbox.smtpToken = token), 1),
          (error: Error) => done(error),
        );
      });
    }
    return mailbox;
  }

  /** The access token the last SMTP login used, and whether the server refused it. */
  private smtpToken?: string;
  private smtpRefused = false;

  /**
   * Runs an SMTP exchange; with OAuth, a refused login (`EAUTH`: an expired or revoked token, answered as a
   * failure or, by Dovecot for a token it cannot introspect, as a temporary one) is tried once more with a fresh
   * token. nodemailer renews by itself only after a `334` challenge, which not every server sends.
   */
  private async withSmtpLogin<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!('accessTokens' in this.credentials) || (error as { code?: string }).code !== 'EAUTH') throw error;
      this.smtpRefused = true;
      return work();
    }
  }

  /** Logs in to IMAP and asks the SMTP server whether it would take mail; either refusal in the server's words. */
  async check(): Promise<void> {
    // needs_reauth is not a refusal of this server but of the provider's grant: the server says it as such.
    await this.session().catch((error: Error) => {
      if (error instanceof NeedsReauthError) throw error;
      throw new ConnectionTestError(`IMAP login to ${this.settings.imap_host} failed: ${reasonOf(error)}`);
    });
    await this.withSmtpLogin(() => this.smtp.verify()).catch((error: Error) => {
      if (error instanceof NeedsReauthError) throw error;
      throw new ConnectionTestError(`the SMTP server ${this.settings.smtp_host} refused: ${reasonOf(error)}`);
    });
  }

  async search(criteria: SearchCriteria, signal: AbortSignal): Promise<MessageSummary[]> {
    const query: SearchObject = {};
    const sender = criteria.from ? senderSearch(criteria.from) : undefined;
    if (sender) query.from = sender.server;
    if (criteria.subject) query.subject = criteria.subject;
    if (criteria.text) query.text = criteria.text;
    if (criteria.since) query.since = criteria.since;
    if (criteria.before) query.before = criteria.before;
    if (criteria.unread) query.seen = false;
    if (Object.keys(query).length === 0) query.all = true;
    return this.inFolder(criteria.folder, async (imap) => {
      const uids = ((await imap.search(query, { uid: true })) || []).sort((a, b) => b - a);
      const limit = Math.min(criteria.limit, EMAIL_LIMITS.maxListed);
      const found: MessageSummary[] = [];
      // Newest first, a batch at a time: the server's matches are all kept, or, for a sender's name, those whose
      // sender holds the whole name (at most SENDER_CANDIDATES of them looked at).
      const candidates = sender?.matches ? uids.slice(0, SENDER_CANDIDATES) : uids.slice(0, limit);
      for (let start = 0; start < candidates.length && found.length < limit; start += limit) {
        const batch = candidates.slice(start, start + limit);
        for await (const message of imap.fetch(batch, { envelope: true, flags: true }, { uid: true })) {
          signal.throwIfAborted();
          const from = message.envelope?.from?.[0];
          if (sender?.matches && !(from && sender.matches(from))) continue;
          found.push(summaryOf(criteria.folder, message.uid, message.envelope, message.flags));
        }
      }
      return found.sort((a, b) => b.date.localeCompare(a.date)).slice(0, limit);
    });
  }

  async read(id: string): Promise<Message> {
    const { folder, uid } = parseId(id);
    const { simpleParser } = await import('mailparser');
    return this.inFolder(folder, async (imap) => {
      const message = await imap.fetchOne(
        String(uid),
        { envelope: true, flags: true, source: { maxLength: EMAIL_LIMITS.maxSourceBytes } },
        { uid: true },
      );
      if (!message || !message.source) throw new EmailError(`there is no message ${id}`);
      const parsed = await simpleParser(message.source);
      const text = (parsed.text ?? '').trim();
      return {
        ...summaryOf(folder, uid, message.envelope, message.flags),
        to: (message.envelope?.to ?? []).map(addressOf),
        cc: (message.envelope?.cc ?? []).map(addressOf),
        text: text.slice(0, EMAIL_LIMITS.maxTextChars),
        truncated: text.length > EMAIL_LIMITS.maxTextChars,
        attachments: parsed.attachments.map((a) => a.filename ?? '(unnamed)'),
      };
    });
  }

  async send(message: Outgoing): Promise<{ message_id: string; to: string[] }> {
    return this.deliver({ ...message });
  }

  async reply(id: string, body: string): Promise<{ message_id: string; to: string[] }> {
    const { folder, uid } = parseId(id);
    const original = await this.inFolder(folder, async (imap) =>
      imap.fetchOne(String(uid), { envelope: true, headers: ['references'] }, { uid: true }),
    );
    if (!original || !original.envelope) throw new EmailError(`there is no message ${id}`);
    const envelope = original.envelope;
    const to = (envelope.replyTo?.length ? envelope.replyTo : (envelope.from ?? []))
      .map((a) => a.address ?? '')
      .filter(Boolean);
    const subject = /^re:/i.test(envelope.subject ?? '')
      ? (envelope.subject ?? '')
      : `Re: ${envelope.subject ?? ''}`;
    const earlier = original.headers
      ?.toString('utf8')
      .replace(/^references:\s*/i, '')
      .trim();
    const references = [earlier, envelope.messageId].filter(Boolean).join(' ');
    return this.deliver({ to, subject, body, inReplyTo: envelope.messageId, references });
  }

  async saveDraft(message: Outgoing): Promise<{ folder: string }> {
    const raw = await this.compose(message);
    const imap = await this.session();
    const drafts = (await imap.list()).find((f) => f.specialUse === '\\Drafts')?.path ?? 'Drafts';
    await imap.append(drafts, raw, ['\\Draft', '\\Seen']);
    return { folder: drafts };
  }

  async close(): Promise<void> {
    this.smtp.close();
    await this.imap?.logout().catch(() => undefined);
    this.imap = undefined;
  }

  private async deliver(
    message: Outgoing & { inReplyTo?: string; references?: string },
  ): Promise<{ message_id: string; to: string[] }> {
    const raw = await this.compose(message);
    const info = await this.withSmtpLogin(() =>
      this.smtp.sendMail({
        envelope: { from: this.settings.from_address, to: [...message.to, ...(message.cc ?? [])] },
        raw,
      }),
    );
    // A copy in Sent, as any mail client keeps one; a server without a Sent folder still sent the mail.
    const imap = await this.session();
    const sent = (await imap.list()).find((f) => f.specialUse === '\\Sent')?.path;
    if (sent) await imap.append(sent, raw, ['\\Seen']).catch(() => undefined);
    return { message_id: String(info.messageId ?? ''), to: message.to };
  }

  private async compose(message: Outgoing & { inReplyTo?: string; references?: string }): Promise<Buffer> {
    const nodemailer = await import('nodemailer');
    const builder = (nodemailer.default ?? nodemailer).createTransport({
      streamTransport: true,
      buffer: true,
    });
    const built = await builder.sendMail({
      from: this.settings.from_address,
      to: message.to,
      cc: message.cc,
      subject: message.subject,
      text: message.body,
      inReplyTo: message.inReplyTo,
      references: message.references,
    });
    return built.message as Buffer;
  }

  /** The logged-in session, opened on first use and again if the server dropped it. */
  private async session(): Promise<ImapFlow> {
    if (this.imap?.usable) return this.imap;
    if ('password' in this.credentials) {
      return this.login({ user: this.settings.username, pass: this.credentials.password });
    }
    const tokens = this.credentials.accessTokens;
    const token = await tokens.accessToken();
    try {
      return await this.login({ user: this.settings.username, accessToken: token });
    } catch (error) {
      // Refused: the token may have expired or been revoked before its time. One fresh token, one more try.
      if (!(error as { authenticationFailed?: boolean }).authenticationFailed) throw error;
      const fresh = await tokens.accessToken({ rejected: token });
      if (fresh === token) throw error;
      return this.login({ user: this.settings.username, accessToken: fresh });
    }
  }

  private async login(auth: { user: string; pass?: string; accessToken?: string }): Promise<ImapFlow> {
    const { ImapFlow } = await import('imapflow');
    const imap = new ImapFlow({
      host: this.imapHost.host,
      servername: this.imapHost.servername,
      port: this.settings.imap_port,
      secure: this.settings.imap_tls,
      auth,
      logger: false,
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: 5 * 60_000,
    });
    imap.on('error', () => undefined);
    await imap.connect();
    this.logins++;
    this.imap = imap;
    return imap;
  }

  private async inFolder<T>(folder: string, work: (imap: ImapFlow) => Promise<T>): Promise<T> {
    const imap = await this.session();
    const lock = await imap.getMailboxLock(folder).catch(() => {
      throw new EmailError(`there is no folder "${folder}"`);
    });
    try {
      return await work(imap);
    } finally {
      lock.release();
    }
  }
}

function summaryOf(
  folder: string,
  uid: number,
  envelope: MessageEnvelopeObject | undefined,
  flags: Set<string> | undefined,
): MessageSummary {
  return {
    id: `${folder}:${uid}`,
    from: addressOf(envelope?.from?.[0]),
    subject: envelope?.subject ?? '(no subject)',
    date: envelope?.date ? new Date(envelope.date).toISOString() : '',
    unread: !flags?.has('\\Seen'),
  };
}

/** The server's own words, without the password a library may have put in the message. */
function reasonOf(error: Error & { responseText?: string; response?: string }): string {
  return (error.responseText ?? error.response ?? error.message).replace(/\s+/g, ' ').trim();
}
