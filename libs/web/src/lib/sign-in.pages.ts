import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Storage } from '@assistant/storage';
import {
  SERVER_CONFIG,
  STORAGE,
  type ServerConfig,
  formText,
  html,
  renderPage,
  type Html,
  csrfField,
  messagePage,
  notFoundPage,
  PAGE_PATHS,
  type PageRoute,
  WebSessions,
  rememberReturnTo,
  takeReturnTo,
  SitePages,
  type PageProvider,
} from '@assistant/server-kit';
import { LOCKOUT_WINDOW_MS, PasswordAccounts, type FieldProblem } from './password-accounts';
import { PasswordPages } from './password.pages';
import { MIN_PASSWORD_LENGTH } from './passwords';
import { AFTER_SIGN_IN, safeReturnTo } from './return-to';
import { SIGN_IN_LINK_LIFETIME_MS, useSignInLink } from './sign-in-links';

interface SignInForm {
  email: string;
  returnTo: string | null;
  error?: string;
  /** Shown above the form instead of an error: what happened before (a sign-up). */
  notice?: string;
}

interface SignUpForm {
  email: string;
  returnTo: string | null;
  problems: FieldProblem[];
}

/**
 * What a sign-up answers, whether it made the account or the email had one already, and what to do in the latter
 * case: an account the operator made has no password, and gets a link by mail when the service sends mail.
 */
function signedUpNotice(mailOn: boolean): string {
  return [
    'Sign in to continue. If this email had no account yet, it has one now, with the password you just chose. If it had one already, nothing about it has changed: sign in with its password;',
    mailOn
      ? 'if the account was made for you without a password, a link to choose one is on its way to this email; if you forgot the password, use “Forgot your password?” below.'
      : 'if the account was made for you without a password, or you forgot it, ask the operator of this service for a link to choose one.',
  ].join(' ');
}

const queryOf = (request: FastifyRequest) => (request.query ?? {}) as Record<string, unknown>;

/** `/signup?return_to=…` and the like: a page path that keeps where to go after signing in. */
function withReturnTo(path: string, returnTo: string | null): string {
  return returnTo ? `${path}?return_to=${encodeURIComponent(returnTo)}` : path;
}

/**
 * Signing in and out. On the hosted service: sign-up and sign-in with email and password. On a self-hosted
 * server the owner signs in with the one-time link `assistant serve` prints: there is no sign-up, and the
 * sign-in page says how to get a link.
 */
@Injectable()
@SitePages()
export class SignInPages implements PageProvider {
  constructor(
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(STORAGE) private readonly storage: Storage,
    private readonly sessions: WebSessions,
    private readonly accounts: PasswordAccounts,
    private readonly passwords: PasswordPages,
  ) {}

  routes(): PageRoute[] {
    return [
      { method: 'GET', path: PAGE_PATHS.signIn, handle: (q, r) => this.showSignIn(q, r) },
      { method: 'POST', path: PAGE_PATHS.signIn, handle: (q, r) => this.signIn(q, r) },
      { method: 'GET', path: PAGE_PATHS.signUp, handle: (q, r) => this.showSignUp(q, r) },
      { method: 'POST', path: PAGE_PATHS.signUp, handle: (q, r) => this.signUp(q, r) },
      { method: 'POST', path: PAGE_PATHS.signOut, handle: (q, r) => this.signOut(q, r) },
      { method: 'GET', path: PAGE_PATHS.signInLink, handle: (q, r) => this.signInWithLink(q, r) },
    ];
  }

  private get hosted(): boolean {
    return this.config.deployment === 'hosted';
  }

  private async showSignIn(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const returnTo = safeReturnTo(queryOf(request).return_to);
    if (await this.sessions.userIdFor(request)) return reply.redirect(returnTo ?? AFTER_SIGN_IN, 303);
    if (!this.hosted) {
      // The link the owner will open cannot carry where this browser was going: the browser keeps it instead.
      if (returnTo) {
        rememberReturnTo(reply, this.sessions.isHttps(request), returnTo, SIGN_IN_LINK_LIFETIME_MS / 1000);
      }
      return this.linkExplanation(reply, returnTo !== null);
    }
    return this.signInPage(request, reply, 200, { email: '', returnTo });
  }

  private async signIn(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    if (!this.hosted) return notFoundPage(reply);
    const email = formText(request, 'email');
    const password = formText(request, 'password');
    const returnTo = safeReturnTo(formText(request, 'return_to'));
    if (!email.trim() || !password) {
      return this.signInPage(request, reply, 400, {
        email,
        returnTo,
        error: 'Enter your email and your password.',
      });
    }
    const outcome = await this.accounts.signIn(email, password);
    if (outcome.kind === 'locked') {
      const minutes = LOCKOUT_WINDOW_MS / 60_000;
      return this.signInPage(request, reply, 429, {
        email,
        returnTo,
        error: `Too many failed sign-ins for this email. Wait ${minutes} minutes, then try again.`,
      });
    }
    if (outcome.kind === 'wrong') {
      return this.signInPage(request, reply, 401, {
        email,
        returnTo,
        error: 'The email or password is wrong.',
      });
    }
    await this.sessions.signIn(request, outcome.userId);
    return reply.redirect(returnTo ?? AFTER_SIGN_IN, 303);
  }

  private async showSignUp(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    if (!this.hosted) return notFoundPage(reply);
    const returnTo = safeReturnTo(queryOf(request).return_to);
    if (await this.sessions.userIdFor(request)) return reply.redirect(returnTo ?? AFTER_SIGN_IN, 303);
    return this.signUpPage(request, reply, 200, { email: '', returnTo, problems: [] });
  }

  private async signUp(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    if (!this.hosted) return notFoundPage(reply);
    const email = formText(request, 'email');
    const returnTo = safeReturnTo(formText(request, 'return_to'));
    const outcome = await this.accounts.signUp(email, formText(request, 'password'));
    if (outcome.kind === 'invalid') {
      return this.signUpPage(request, reply, 400, { email, returnTo, problems: outcome.problems });
    }
    // Not signed in at once: a new account and an email that had one get the same page, so that sign-up never
    // tells a stranger who has an account here (sign-in does not either). An account the operator made has no
    // password: its email gets a link to choose one, after the answer, which must not wait for it.
    this.passwords.mailFirstPasswordLink(email, request);
    return this.signInPage(request, reply, 200, {
      email,
      returnTo,
      notice: signedUpNotice(this.config.mail !== undefined),
    });
  }

  private async signOut(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    await this.sessions.signOut(request);
    return reply.redirect(PAGE_PATHS.signIn, 303);
  }

  private async signInWithLink(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const userId = await useSignInLink(this.storage, queryOf(request).token);
    if (!userId) {
      return messagePage(
        reply,
        400,
        'This sign-in link does not work',
        html`A sign-in link works once, for 15 minutes. This one was used already, has expired, or is not
          complete. On the machine that runs the server, run <code>assistant serve --login-link</code> for a
          new one (or <code>assistant accounts login-link --email …</code> for another account).`,
      );
    }
    await this.sessions.signIn(request, userId);
    const resumed = safeReturnTo(takeReturnTo(request, reply, this.sessions.isHttps(request)));
    return reply.redirect(resumed ?? AFTER_SIGN_IN, 303);
  }

  private linkExplanation(reply: FastifyReply, resumes: boolean): FastifyReply {
    return renderPage(reply, {
      title: 'Sign in',
      body: html`<h1>Sign in</h1>
        <p>This self-hosted server signs people in with a one-time link instead of a password.</p>
        <p>
          On the machine that runs it, run <code>assistant serve --login-link</code> and open the link it
          prints. The link printed when the server started works too. A link works once, within 15 minutes.
        </p>
        <p>
          Not the owner? Ask them for a link: they make one on their profile page, or with
          <code>assistant accounts login-link --email …</code>.
        </p>
        ${resumes && html`<p>Open it in this browser to come back to where you were.</p>`}`,
    });
  }

  private async signInPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: SignInForm,
  ): Promise<FastifyReply> {
    const csrf = await this.sessions.csrfFor(request);
    return renderPage(reply, {
      status,
      title: 'Sign in',
      body: html`<h1>Sign in</h1>
        ${form.notice && html`<p class="notice" role="status">${form.notice}</p>`}
        ${form.error && html`<p class="error" role="alert" id="sign-in-error">${form.error}</p>`}
        <form method="post" action="${PAGE_PATHS.signIn}">
          ${csrfField(csrf)}${returnToField(form.returnTo)}
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value="${form.email}"
            ${describedBy(form.error && 'sign-in-error')}
          />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Sign in</button>
        </form>
        ${this.config.mail && html`<p><a href="${PAGE_PATHS.forgotPassword}">Forgot your password?</a></p>`}
        <p>No account yet? <a href="${withReturnTo(PAGE_PATHS.signUp, form.returnTo)}">Create one</a>.</p>`,
    });
  }

  private async signUpPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: SignUpForm,
  ): Promise<FastifyReply> {
    const csrf = await this.sessions.csrfFor(request);
    const problemOf = (field: FieldProblem['field']) => form.problems.find((p) => p.field === field)?.message;
    const emailProblem = problemOf('email');
    const passwordProblem = problemOf('password');
    return renderPage(reply, {
      status,
      title: 'Create an account',
      body: html`<h1>Create an account</h1>
        ${form.problems.length > 0 && html`<p class="error" role="alert">Check the fields marked below.</p>`}
        <form method="post" action="${PAGE_PATHS.signUp}">
          ${csrfField(csrf)}${returnToField(form.returnTo)}
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value="${form.email}"
            ${describedBy(emailProblem && 'email-problem')}
          />
          ${emailProblem && html`<p class="error" id="email-problem">${emailProblem}</p>`}
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minlength="${MIN_PASSWORD_LENGTH}"
            aria-describedby="password-hint${passwordProblem ? ' password-problem' : ''}"
          />
          <p class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</p>
          ${passwordProblem && html`<p class="error" id="password-problem">${passwordProblem}</p>`}
          <button type="submit">Create account</button>
        </form>
        <p>Have an account? <a href="${withReturnTo(PAGE_PATHS.signIn, form.returnTo)}">Sign in</a>.</p>`,
    });
  }
}

function returnToField(returnTo: string | null): Html {
  return html`${returnTo && html`<input type="hidden" name="return_to" value="${returnTo}" />`}`;
}

function describedBy(id: string | false | undefined | ''): Html {
  return html`${id && html` aria-describedby="${id}"`}`;
}
