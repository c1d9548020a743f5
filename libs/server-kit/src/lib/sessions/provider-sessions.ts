import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { OAuthRecordsRepository } from '@assistant/storage';
import { InjectRepository } from '../ports/repositories';
import { readCookie } from './session-cookie';

/** The cookie in which the authorization server keeps its browser session's id (oidc-provider's `cookies.names`). */
export const PROVIDER_SESSION_COOKIE = '_session';

/** The cookie that names the pending interaction (sign-in, consent) a browser is in (`cookies.names`). */
export const PROVIDER_INTERACTION_COOKIE = '_interaction';

/**
 * The authorization server's own browser session (oidc-provider's: who signed in to it, and which applications
 * were allowed in that session) follows the pages' web session, which is the only sign-in a person sees (B4):
 * it ends when the web session ends or changes hands (sign-out, every sign-in), and before the provider decides
 * an authorization request it is ended unless it is the signed-in person's — so that a browser never gets a code
 * for someone who is not signed in on it, and the provider asks the pages who is (a fresh sign-in, or the
 * signed-in person's own consent).
 *
 * Its record is removed, not its cookie: a cookie naming no record is a new, empty session to the provider. The
 * cookie's value is read unverified, which is safe for what is done with it (ending the session it names).
 */
@Injectable()
export class ProviderSessions {
  constructor(@InjectRepository('oauth') private readonly oauthRecords: OAuthRecordsRepository) {}

  /** Ends the provider session of this request's browser, if it has one. */
  async end(request: FastifyRequest): Promise<void> {
    const id = readCookie(request, PROVIDER_SESSION_COOKIE);
    if (id) await this.oauthRecords.destroy('Session', id);
  }

  /** Ends it unless it is `userId`'s (or of no one yet): `userId` is who is signed in to the pages, or null. */
  async endUnlessOf(request: FastifyRequest, userId: string | null): Promise<void> {
    const id = readCookie(request, PROVIDER_SESSION_COOKIE);
    if (!id) return;
    const session = await this.oauthRecords.find('Session', id);
    const accountId = session?.payload.accountId;
    if (accountId !== undefined && accountId !== userId) await this.oauthRecords.destroy('Session', id);
  }
}
