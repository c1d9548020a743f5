import { Inject, Injectable, Logger } from '@nestjs/common';
import { SERVER_CONFIG, type ServerConfig } from '@assistant/server-kit';
import { PASSWORD_LINK_LIFETIMES_MS } from './password-links';

/**
 * The service's own mail: a password link to one person, through the operator's mail server
 * (`ASSISTANT_SMTP_URL`, from `ASSISTANT_MAIL_FROM`). nodemailer is loaded on the first mail only.
 */
@Injectable()
export class PasswordMail {
  private readonly log = new Logger('PasswordMail');
  private transport?: Promise<{ sendMail(message: object): Promise<unknown> }>;

  constructor(@Inject(SERVER_CONFIG) private readonly config: ServerConfig) {}

  /** Whether the service can send mail at all. */
  get enabled(): boolean {
    return this.config.mail !== undefined;
  }

  /**
   * Sends `link` (a mailed one: PASSWORD_LINK_LIFETIMES_MS.reset) to `to`. Never throws: the caller has answered already (the answer must not depend on the
   * account), and a failure is logged without the link, which is a credential.
   */
  async sendLink(to: string, link: string, firstPassword: boolean): Promise<void> {
    const mail = this.config.mail;
    if (!mail) return;
    const minutes = PASSWORD_LINK_LIFETIMES_MS.reset / 60_000;
    try {
      const transport = await this.transportFor(mail.smtpUrl);
      await transport.sendMail({
        from: mail.from,
        to,
        subject: firstPassword ? 'Choose your Assistant password' : 'Reset your Assistant password',
        text: [
          firstPassword
            ? 'Someone asked for a password for the Assistant account of this address.'
            : 'Someone asked to reset the password of the Assistant account of this address.',
          '',
          `Choose a ${firstPassword ? '' : 'new '}password here (the link works once, within ${minutes} minutes):`,
          link,
          '',
          'If it was not you, ignore this mail: nothing changes until the link is used.',
        ].join('\n'),
      });
    } catch (error) {
      this.log.warn(`a password link could not be mailed: ${(error as Error).message}`);
    }
  }

  private transportFor(smtpUrl: string) {
    this.transport ??= import('nodemailer').then((nodemailer) => nodemailer.createTransport(smtpUrl));
    return this.transport;
  }
}
