import type { DriverEnvironment } from '../family';
import type { OAuthClientCredentials, OAuthClientDefinition } from './oauth-client';
import { OAuthEndpointError, postForm } from './token-endpoint';

/**
 * The provider no longer honours the connection's refresh token (revoked by the person, expired, the app's
 * access removed: `invalid_grant`): only a new consent helps. The server turns the connection's status to
 * `needs_reauth` and says so with the link to reconnect.
 */
export class NeedsReauthError extends Error {
  readonly code = 'needs_reauth';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NeedsReauthError';
  }
}

/** Where a connection's driver gets its access tokens; it never sees the refresh token. */
export interface AccessTokenSource {
  /**
   * An access token with at least a minute left, refreshed first when it has less. `rejected`: the token the
   * remote server just refused (expired early, revoked): a new one is fetched unless that one is already old.
   * Throws `NeedsReauthError` when the provider refuses the refresh token.
   */
  accessToken(options?: { rejected?: string }): Promise<string>;
}

/** What a refresh gave: the server stores it (sealed) so that every instance starts from it. */
export interface RefreshedTokens {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** A provider that rotates refresh tokens (Microsoft) sends a new one; the old one then stops working. */
  refreshToken: string;
}

export interface RefreshingTokenSourceOptions {
  definition: Pick<OAuthClientDefinition, 'title' | 'tokenEndpoint' | 'clientAuth'>;
  client: OAuthClientCredentials;
  refreshToken: string;
  /** The access token last stored, if any and not yet expired. */
  current?: { accessToken: string; expiresAt: number };
  /** Asked for at each refresh (a client with tokens per resource: the protocol's scopes). */
  scopes?: readonly string[];
  /** Called after each refresh, before the new token is handed out: where the server persists it. */
  onRefresh?(tokens: RefreshedTokens): Promise<void> | void;
  /**
   * How a refresh is made: by default at once; the hosted server passes one that holds a lock per connection
   * across instances (Redis) while the refresh runs, so that a connection is refreshed once at a time.
   */
  serialize?<T>(refresh: () => Promise<T>): Promise<T>;
  /**
   * Reads the connection's stored tokens, inside `serialize`, before refreshing: another instance (or another
   * protocol of the connection) may have refreshed them meanwhile. A stored access token that is fresh (and not
   * the one just refused) is taken as it is; otherwise the stored refresh token, which a rotating provider may
   * have replaced, is the one redeemed.
   */
  reload?(): Promise<{ refreshToken: string; current?: { accessToken: string; expiresAt: number } }>;
  fetch?: typeof globalThis.fetch;
  now?: () => number;
  /** How long before its expiry a token is refreshed (default 60 s). */
  marginMs?: number;
}

/**
 * An access token source over a refresh token (RFC 6749 §6): hands out the current access token while it has
 * more than the margin left, refreshes it before it expires, once at a time however many callers ask, and after
 * a refusal of the refresh token keeps answering `NeedsReauthError` without asking the provider again.
 */
export function refreshingTokenSource(options: RefreshingTokenSourceOptions): AccessTokenSource {
  const now = options.now ?? Date.now;
  const margin = options.marginMs ?? 60_000;
  let current = options.current;
  let refreshToken = options.refreshToken;
  let refreshing: Promise<string> | undefined;
  let reauth: NeedsReauthError | undefined;
  /** A token with more than the margin left, and not the one a server just refused. */
  const usable = (token: { accessToken: string; expiresAt: number }, rejected: string | undefined) =>
    token.expiresAt - margin > now() && token.accessToken !== rejected;

  const refresh = async (rejected: string | undefined): Promise<string> => {
    if (options.reload) {
      const stored = await options.reload();
      refreshToken = stored.refreshToken;
      if (stored.current && usable(stored.current, rejected)) {
        current = stored.current;
        return current.accessToken;
      }
    }
    const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken };
    if (options.scopes?.length) form.scope = options.scopes.join(' ');
    const reply = await postForm(
      options.definition.tokenEndpoint,
      options.definition.clientAuth ?? 'client_secret_post',
      options.client,
      form,
      options.fetch,
    ).catch((error: unknown) => {
      if (error instanceof OAuthEndpointError && error.error === 'invalid_grant') {
        reauth = new NeedsReauthError(
          `${options.definition.title} no longer accepts this connection (its access was revoked or has expired); connect it again`,
          { cause: error },
        );
        throw reauth;
      }
      throw error;
    });
    const tokens: RefreshedTokens = {
      accessToken: reply.access_token,
      expiresAt: now() + (reply.expires_in ?? 3600) * 1000,
      refreshToken: reply.refresh_token ?? refreshToken,
    };
    await options.onRefresh?.(tokens);
    refreshToken = tokens.refreshToken;
    current = { accessToken: tokens.accessToken, expiresAt: tokens.expiresAt };
    return tokens.accessToken;
  };

  return {
    async accessToken({ rejected } = {}) {
      if (reauth) throw reauth;
      if (refreshing) return refreshing;
      // A token refused by the server is refreshed once; a refusal of an older one is answered with the current.
      if (current && usable(current, rejected)) return current.accessToken;
      const run = options.serialize
        ? () => options.serialize!(() => refresh(rejected))
        : () => refresh(rejected);
      refreshing = run().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
  };
}

/** The environment the server opens an OAuth connection's driver with: the base one and its token source. */
export interface OAuthDriverEnvironment extends DriverEnvironment {
  accessTokens: AccessTokenSource;
}

/**
 * The token source of an OAuth connection's driver. The server adds it to the environment when it opens a
 * connection made by OAuth; a provider of such connections opened without one is a server bug, said so.
 */
export function accessTokensOf(env: DriverEnvironment): AccessTokenSource {
  const source = (env as Partial<OAuthDriverEnvironment>).accessTokens;
  if (!source)
    throw new Error('this connection is made by OAuth, and the server gave its driver no token source');
  return source;
}
