import type { ImapFlow, MessageEnvelopeObject, SearchObject } from 'imapflow';
import type { Transporter } from 'nodemailer';
import { ConnectionTestError, type PinnedHost } from '@assistant/tool-kit';
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

const TIMEOUT_MS = 20_000;

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
    private readonly password: string,
    private readonly smtp: Transporter,
    private readonly imapHost: PinnedHost,
  ) {}

  /**
   * `hosts` are where the IMAP and SMTP clients connect (the checked addresses on the hosted API, with the names
   * for TLS); by default the settings' names.
   */
  static async open(
    settings: MailboxSettings,
    password: string,
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
      auth: { user: settings.username, pass: password },
      connectionTimeout: TIMEOUT_MS,
      greetingTimeout: TIMEOUT_MS,
      socketTimeout: TIMEOUT_MS,
    });
    return new ImapSmtpMailbox(settings, password, smtp, hosts.imap);
  }

  /** Logs in to IMAP and asks the SMTP server whether it would take mail; either refusal in the server's words. */
  async check(): Promise<void> {
    await this.session().catch((error: Error) => {
      throw new ConnectionTestError(`IMAP login to ${this.settings.imap_host} failed: ${reasonOf(error)}`);
    });
    await this.smtp.verify().catch((error: Error) => {
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
    const info = await this.smtp.sendMail({
      envelope: { from: this.settings.from_address, to: [...message.to, ...(message.cc ?? [])] },
      raw,
    });
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
    const { ImapFlow } = await import('imapflow');
    const imap = new ImapFlow({
      host: this.imapHost.host,
      servername: this.imapHost.servername,
      port: this.settings.imap_port,
      secure: this.settings.imap_tls,
      auth: { user: this.settings.username, pass: this.password },
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
