import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Storage } from '@assistant/storage';
import {
  SERVER_CONFIG,
  STORAGE,
  type ServerConfig,
  PublicAddress,
  formText,
  html,
  renderPage,
  type Html,
  csrfField,
  messagePage,
  notFoundPage,
  PAGE_PATHS,
  type PageRoute,
  whenSignedIn,
  WebSessions,
  SitePages,
  type PageProvider,
} from '@assistant/server-kit';
import { normalEmail, signUpProblems } from './password-accounts';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords';
import {
  issuePasswordLink,
  looksLikePasswordToken,
  PASSWORD_LINK_LIFETIMES_MS,
  usePasswordLink,
} from './password-links';
import { PasswordMail } from './password-mail';
import { issueSignInLink, SIGN_IN_LINK_LIFETIME_MS } from './sign-in-links';

/** At most this many password links are mailed to one address within PASSWORD_MAIL_WINDOW_MS. */
export const PASSWORD_MAILS_PER_ADDRESS = 3;
export const PASSWORD_MAIL_WINDOW_MS = 30 * 60 * 1000;

/** What "forgot password" answers, whether or not the email has an account (and whether or not a mail went). */
export const LINK_MAILED =
  'If an account has this email, a link to choose a new password is on its way to it. The link works once, within 30 minutes. Nothing arrived? Check the spam folder, or ask again in a while.';

const queryOf = (request: FastifyRequest) => (request.query ?? {}) as Record<string, unknown>;

/**
 * Passwords and links of the hosted service — "forgot password" (a link by mail), the link's form for a new
 * password (also how an account the operator made gets its first one), and the password change on /profile —
 * and, on a self-hosted server, the owner's sign-in links for the household's other accounts.
 *
 * Nothing here tells whether an email has an account: "forgot password" answers the same page at once, and
 * mails (or not) afterwards; it is limited per address (PASSWORD_MAILS_PER_ADDRESS, counted whether or not the
 * account exists) and per client (the auth bucket, CREDENTIAL_PAGE_ROUTES). A new password, by link or by
 * change, signs every other browser of the account out.
 */
@Injectable()
@SitePages()
export class PasswordPages implements PageProvider {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(STORAGE) private readonly storage: Storage,
    private readonly sessions: WebSessions,
    private readonly mail: PasswordMail,
    private readonly address: PublicAddress,
  ) {}

  routes(): PageRoute[] {
    return [
      {
        method: 'GET',
        path: PAGE_PATHS.forgotPassword,
        handle: (q, r) => this.hostedOnly(r, () => this.showForgot(q, r)),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.forgotPassword,
        handle: (q, r) => this.hostedOnly(r, () => this.forgot(q, r)),
      },
      {
        method: 'GET',
        path: PAGE_PATHS.resetPassword,
        handle: (q, r) => this.hostedOnly(r, () => this.showReset(q, r)),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.resetPassword,
        handle: (q, r) => this.hostedOnly(r, () => this.reset(q, r)),
      },
      {
        method: 'GET',
        path: PAGE_PATHS.changePassword,
        handle: (q, r) => this.hostedOnly(r, () => this.signedIn(q, r, () => this.changeForm(q, r, 200))),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.changePassword,
        handle: (q, r) => this.hostedOnly(r, () => this.signedIn(q, r, (u) => this.change(q, r, u))),
      },
      {
        method: 'POST',
        path: PAGE_PATHS.memberSignInLink,
        handle: (q, r) => this.signedIn(q, r, (u) => this.memberLink(q, r, u)),
      },
    ];
  }

  private get hosted(): boolean {
    return this.config.deployment === 'hosted';
  }

  private hostedOnly(reply: FastifyReply, then: () => Promise<unknown>): Promise<unknown> {
    return this.hosted ? then() : Promise.resolve(notFoundPage(reply));
  }

  private async signedIn(
    request: FastifyRequest,
    reply: FastifyReply,
    then: (userId: string) => Promise<unknown>,
  ): Promise<unknown> {
    return whenSignedIn((r) => this.sessions.userIdFor(r), request, reply, then);
  }

  /** The self-hosted owner: the first account, made by `assistant serve` on its first run. */
  private async isOwner(userId: string): Promise<boolean> {
    return (await this.storage.users.findFirst())?.id === userId;
  }

  private async showForgot(request: FastifyRequest, reply: FastifyReply, notice?: string): Promise<unknown> {
    if (!this.mail.enabled) {
      return messagePage(
        reply,
        503,
        'Mail is off',
        'This service sends no mail, so it cannot send a password link. Ask its operator for one.',
      );
    }
    const csrf = await this.sessions.csrfFor(request);
    return renderPage(reply, {
      title: 'Forgot your password?',
      body: html`<h1>Forgot your password?</h1>
        ${notice && html`<p class="notice" role="status">${notice}</p>`}
        <p>Enter the email of your account: a link to choose a new password is mailed to it.</p>
        <form method="post" action="${PAGE_PATHS.forgotPassword}">
          ${csrfField(csrf)}
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required />
          <button type="submit">Send the link</button>
        </form>
        <p><a href="${PAGE_PATHS.signIn}">Back to sign in</a></p>`,
    });
  }

  private async forgot(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const email = normalEmail(formText(request, 'email'));
    this.afterAnswer(request, email, () => this.mailLink(email, false));
    return this.showForgot(request, reply, LINK_MAILED);
  }

  /** After a sign-up: an account of that email without a password (the operator made it) gets a link to set one. */
  mailFirstPasswordLink(rawEmail: string, request: FastifyRequest): void {
    const email = normalEmail(rawEmail);
    this.afterAnswer(request, email, async () => {
      const account = await this.storage.users.findPasswordHash(email);
      if (account && !account.passwordHash) await this.mailLink(email, true);
    });
  }

  /** Mail work runs after the answer, never before it: how long the answer takes must not depend on the account. */
  private afterAnswer(request: FastifyRequest, email: string, work: () => Promise<void>): void {
    if (!this.mail.enabled || !email) return;
    setImmediate(
      () => void work().catch((error: unknown) => request.log.warn({ err: error }, 'password link not sent')),
    );
  }

  /**
   * Mails a password link to the account of `email`, if it has one and the address has not had too many lately.
   * The count is kept whether or not the account exists, so that the limit tells nothing either.
   */
  async mailLink(email: string, firstPassword: boolean): Promise<void> {
    const key = createHash('sha256').update(`password-mail:${email}`, 'utf8').digest('hex');
    const now = new Date();
    const since = new Date(now.getTime() - PASSWORD_MAIL_WINDOW_MS);
    await this.storage.signInFailures.record(key, now, since);
    if ((await this.storage.signInFailures.countSince(key, since)) > PASSWORD_MAILS_PER_ADDRESS) return;
    const user = await this.storage.users.findByEmail(email);
    if (!user) return;
    const link = await issuePasswordLink(
      this.storage,
      user.id,
      this.address.url,
      PASSWORD_LINK_LIFETIMES_MS.reset,
    );
    await this.mail.sendLink(user.email, link, firstPassword);
  }

  private async showReset(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const token = queryOf(request).token;
    if (!looksLikePasswordToken(token)) return this.deadLink(reply);
    return this.resetForm(request, reply, token, 200);
  }

  private async resetForm(
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    status: number,
    problem?: string,
  ): Promise<FastifyReply> {
    const csrf = await this.sessions.csrfFor(request);
    return renderPage(reply, {
      status,
      title: 'Choose a password',
      body: html`<h1>Choose a password</h1>
        ${problem && html`<p class="error" role="alert" id="password-problem">${problem}</p>`}
        <form method="post" action="${PAGE_PATHS.resetPassword}">
          ${csrfField(csrf)}
          <input type="hidden" name="token" value="${token}" />
          ${newPasswordField('password', 'New password', problem ? 'password-problem' : undefined)}
          <button type="submit">Set the password</button>
        </form>`,
    });
  }

  private async reset(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const token = formText(request, 'token');
    const password = formText(request, 'password');
    const problem = passwordProblem(password);
    // Checked before the link is used, so that a too-short password does not spend it.
    if (problem) {
      if (!looksLikePasswordToken(token)) return this.deadLink(reply);
      return this.resetForm(request, reply, token, 400, problem);
    }
    const passwordHash = await hashPassword(password);
    const userId = await usePasswordLink(this.storage, token);
    if (!userId) return this.deadLink(reply);
    await this.storage.users.setPasswordHash(userId, passwordHash);
    await this.sessions.signIn(request, userId);
    await this.sessions.signOutElsewhere(request, userId);
    return reply.redirect(PAGE_PATHS.profile, 303);
  }

  private deadLink(reply: FastifyReply): FastifyReply {
    return messagePage(
      reply,
      400,
      'This link does not work',
      html`A password link works once, within 30 minutes. This one was used already, has expired, or is not
        complete. <a href="${PAGE_PATHS.forgotPassword}">Ask for a new one</a>.`,
    );
  }

  private async changeForm(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    problem?: string,
  ): Promise<FastifyReply> {
    const csrf = await this.sessions.csrfFor(request);
    return renderPage(reply, {
      status,
      title: 'Change your password',
      body: html`<h1>Change your password</h1>
        ${problem && html`<p class="error" role="alert" id="password-problem">${problem}</p>`}
        <p>Your other browsers are signed out once it is changed.</p>
        <form method="post" action="${PAGE_PATHS.changePassword}">
          ${csrfField(csrf)}
          <label for="current">Current password</label>
          <input id="current" name="current" type="password" autocomplete="current-password" required />
          ${newPasswordField('password', 'New password', problem ? 'password-problem' : undefined)}
          <button type="submit">Change password</button>
        </form>
        <p><a href="${PAGE_PATHS.profile}">Back to your profile</a></p>`,
    });
  }

  private async change(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<unknown> {
    const user = await this.storage.users.findById(userId);
    const stored = user ? await this.storage.users.findPasswordHash(user.email) : null;
    const current = formText(request, 'current');
    const password = formText(request, 'password');
    if (!stored?.passwordHash || !(await verifyPassword(stored.passwordHash, current))) {
      return this.changeForm(request, reply, 401, 'The current password is wrong.');
    }
    const problem = passwordProblem(password);
    if (problem) return this.changeForm(request, reply, 400, problem);
    await this.storage.users.setPasswordHash(userId, await hashPassword(password));
    await this.sessions.signOutElsewhere(request, userId);
    return messagePage(
      reply,
      200,
      'Password changed',
      html`Your password is changed, and your other browsers are signed out.
        <a href="${PAGE_PATHS.profile}">Back to your profile</a>.`,
    );
  }

  /** The self-hosted owner makes a sign-in link for another account of the household (and only the owner). */
  private async memberLink(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<unknown> {
    if (this.hosted || !(await this.isOwner(userId))) return notFoundPage(reply);
    const email = normalEmail(formText(request, 'email'));
    const member = email ? await this.storage.users.findByEmail(email) : null;
    if (!member) {
      return messagePage(
        reply,
        404,
        'No such account',
        html`This server has no account with that email. Add one with
          <code>assistant accounts add --email …</code>. <a href="${PAGE_PATHS.profile}#household">Back</a>.`,
      );
    }
    const link = await issueSignInLink(this.storage, member.id, this.address.url);
    return renderPage(reply, {
      status: 201,
      title: 'Sign-in link',
      body: html`<h1>Sign-in link for ${member.email}</h1>
        <p class="notice" role="status">
          Hand this link to ${member.displayName} only: it signs whoever opens it in as them, once, within
          ${SIGN_IN_LINK_LIFETIME_MS / 60_000} minutes. It is shown this once.
        </p>
        <label for="link">Link</label>
        <input
          id="link"
          type="text"
          readonly
          value="${link}"
          class="secret"
          autocomplete="off"
          spellcheck="false"
        />
        <p><a href="${PAGE_PATHS.profile}#household">Back to your profile</a></p>`,
    });
  }
}

/** What is wrong with a new password, or null (the rules of sign-up). */
function passwordProblem(password: string): string | null {
  return signUpProblems('someone@example.com', password).find((p) => p.field === 'password')?.message ?? null;
}

function newPasswordField(name: string, label: string, problemId: string | undefined): Html {
  return html`<label for="${name}">${label}</label>
    <input
      id="${name}"
      name="${name}"
      type="password"
      autocomplete="new-password"
      required
      minlength="${MIN_PASSWORD_LENGTH}"
      aria-describedby="${name}-hint${problemId ? ` ${problemId}` : ''}"
    />
    <p class="hint" id="${name}-hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>`;
}
