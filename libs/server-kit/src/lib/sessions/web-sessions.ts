import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSession, WebSessionsRepository } from '@assistant/storage';
import { SERVER_CONFIG } from '../ports/core-tokens';
import { InjectRepository } from '../ports/repositories';
import type { ServerConfig } from '../config/server-config';
import { ProviderSessions } from './provider-sessions';
import { appendSetCookie, readCookie, sessionCookie, sessionCookieName } from './session-cookie';

const DAY_MS = 24 * 60 * 60 * 1000;

export const SESSION_LIFETIMES = {
  /** A signed-in session ends after this long without a visit (each visit moves its end, at most once a day). */
  signedInMs: 14 * DAY_MS,
  /** A signed-out visitor's session exists only so that its sign-in or sign-up form carries a CSRF token. */
  signedOutMs: DAY_MS,
  /** A session's end moves once this much of its lifetime has passed since it was last moved. */
  slideEveryMs: DAY_MS,
} as const;

/** 32 random bytes in base64url: what the cookie carries. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

const digestOf = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const randomValue = () => randomBytes(32).toString('base64url');

/**
 * Browser sessions of the pages outside /api/v1 (sign-in, /profile, OAuth consent), kept in the database: the
 * cookie holds a random value, the database only its SHA-256 digest.
 *
 * CSRF protection is the synchronizer token pattern: each session has a random secret, stored with it, that
 * every form of the session carries in a hidden field (`csrfFor`) and that every POST must send back
 * (`checkCsrf`). A signed-out visitor gets a session too (without an account) as soon as a form is shown to it,
 * so that the sign-in and sign-up forms are protected the same way; signing in replaces that session with a new
 * one, so that a session id planted before sign-in is worth nothing after it.
 *
 * Cookies are set on the reply of the request that changed the session, by an onSend hook, so that callers
 * need only the request.
 *
 * Signing in and signing out also end the authorization server's browser session (ProviderSessions): the OAuth
 * side never keeps someone signed in whom the pages signed out or replaced.
 */
@Injectable()
export class WebSessions implements OnModuleInit {
  /** The session of each request, looked up once. */
  private readonly resolved = new WeakMap<FastifyRequest, Promise<WebSession | null>>();
  /** The Set-Cookie each request's reply must carry. */
  private readonly pendingCookies = new WeakMap<FastifyRequest, string>();

  constructor(
    @InjectRepository('webSessions') private readonly webSessions: WebSessionsRepository,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly providerSessions: ProviderSessions,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // A callback hook, not an async one: it runs before every response is written, most of them without a cookie.
    fastify.addHook('onSend', (request, reply, payload, done) => {
      const cookie = this.pendingCookies.get(request);
      if (cookie) appendSetCookie(reply, cookie);
      done(null, payload);
    });
  }

  /** The signed-in account of this request's browser, or null. */
  async userIdFor(request: FastifyRequest): Promise<string | null> {
    return (await this.sessionFor(request))?.userId ?? null;
  }

  /**
   * The CSRF token to put in a hidden field of a form shown to this browser. Starts a (signed-out) session when
   * the browser has none, whose cookie goes out with this request's reply.
   */
  async csrfFor(request: FastifyRequest): Promise<string> {
    const session = (await this.sessionFor(request)) ?? (await this.start(request, null));
    return session.csrfSecret;
  }

  /** Whether `token` (the form's hidden field) is the CSRF token of this browser's live session. */
  async checkCsrf(request: FastifyRequest, token: unknown): Promise<boolean> {
    const session = await this.sessionFor(request);
    if (!session || typeof token !== 'string' || token.length === 0) return false;
    const expected = Buffer.from(session.csrfSecret);
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Signs this browser in as `userId`, in a new session that replaces the one it had. */
  async signIn(request: FastifyRequest, userId: string): Promise<void> {
    const previous = await this.sessionFor(request);
    if (previous) await this.webSessions.delete(previous.digest);
    await this.providerSessions.end(request);
    await this.start(request, userId);
  }

  /**
   * Ends every session of `userId` except this browser's (after a password change or reset: whoever else held one
   * is signed out at their next request).
   */
  async signOutElsewhere(request: FastifyRequest, userId: string): Promise<void> {
    const session = await this.sessionFor(request);
    await this.webSessions.deleteAllOf(userId, session?.userId === userId ? session.digest : null);
  }

  /** Ends this browser's session, in the database and in the browser. */
  async signOut(request: FastifyRequest): Promise<void> {
    const session = await this.sessionFor(request);
    if (session) await this.webSessions.delete(session.digest);
    await this.providerSessions.end(request);
    this.resolved.set(request, Promise.resolve(null));
    this.pendingCookies.set(request, sessionCookie(this.isHttps(request), '', 0));
  }

  /**
   * Whether the browser reached this server over https: directly, through a trusted proxy that says so
   * (`ASSISTANT_TRUST_PROXY`), or as the configured public address promises.
   */
  isHttps(request: FastifyRequest): boolean {
    return request.protocol === 'https' || Boolean(this.config.publicUrl?.startsWith('https:'));
  }

  private sessionFor(request: FastifyRequest): Promise<WebSession | null> {
    let session = this.resolved.get(request);
    if (!session) {
      session = this.lookUp(request);
      this.resolved.set(request, session);
    }
    return session;
  }

  private async lookUp(request: FastifyRequest): Promise<WebSession | null> {
    const secure = this.isHttps(request);
    const value = readCookie(request, sessionCookieName(secure));
    if (!value || !COOKIE_VALUE.test(value)) return null;
    const now = new Date();
    const session = await this.webSessions.findLive(digestOf(value), now);
    if (!session) return null;
    const lifetime = session.userId ? SESSION_LIFETIMES.signedInMs : SESSION_LIFETIMES.signedOutMs;
    const sinceMoved = now.getTime() - (session.expiresAt.getTime() - lifetime);
    if (session.userId && sinceMoved >= SESSION_LIFETIMES.slideEveryMs) {
      const expiresAt = new Date(now.getTime() + lifetime);
      await this.webSessions.extend(session.digest, expiresAt);
      this.pendingCookies.set(request, sessionCookie(secure, value, lifetime / 1000));
      return { ...session, expiresAt };
    }
    return session;
  }

  private async start(request: FastifyRequest, userId: string | null): Promise<WebSession> {
    const value = randomValue();
    const lifetime = userId ? SESSION_LIFETIMES.signedInMs : SESSION_LIFETIMES.signedOutMs;
    const session = await this.webSessions.create({
      digest: digestOf(value),
      userId,
      csrfSecret: randomValue(),
      expiresAt: new Date(Date.now() + lifetime),
    });
    this.resolved.set(request, Promise.resolve(session));
    this.pendingCookies.set(request, sessionCookie(this.isHttps(request), value, lifetime / 1000));
    return session;
  }
}
