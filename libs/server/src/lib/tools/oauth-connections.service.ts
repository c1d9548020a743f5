import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  authorizationRequest,
  NeedsReauthError,
  OAuthEndpointError,
  redeemAuthorizationCode,
  refreshingTokenSource,
  revokeGrant,
  type AccessTokenSource,
  type GrantedTokens,
} from '@assistant/tool-kit';
import type { StoredConnection, ConnectionsRepository } from '@assistant/storage';
import {
  SERVER_CONFIG,
  InjectRepository,
  type OAuthClientName,
  type ServerConfig,
  PublicAddress,
  PAGE_PATHS,
  REFRESH_LOCK,
  type RefreshLock,
} from '@assistant/server-kit';
import { SecretBox } from './secret-box';
import type { ActiveConnection } from './connection-source';
import { configuredOAuthClients, type ConfiguredOAuthClient } from './oauth-clients';

/** How long a started connection may take to come back from the provider. */
export const PENDING_LIFETIME_MS = 10 * 60_000;

/**
 * The sealed secrets of a connection made by OAuth. The connections one consent made (mail, calendar) share a
 * `grant`: its refresh token is the same, and a refresh that rotates it is written to each of them.
 */
interface OAuthSecrets {
  oauth_client: OAuthClientName;
  grant: string;
  email: string;
  refresh_token: string;
  access_token?: string;
  /** Epoch milliseconds. */
  expires_at?: number;
}

/** What the browser keeps (sealed, in a cookie bound to its web session) between the start and the callback. */
interface PendingConnection {
  client: OAuthClientName;
  userId: string;
  state: string;
  codeVerifier: string;
  redirectUri: string;
  expiresAt: number;
}

/** A refusal of the callback, in words for the page (never a token, never the provider's raw answer). */
export class OAuthConnectRefused extends Error {}

const isOAuthSecrets = (
  secrets: Record<string, unknown>,
): secrets is Record<string, unknown> & OAuthSecrets =>
  typeof secrets.oauth_client === 'string' && typeof secrets.refresh_token === 'string';

/** What binds a pending connection to one web session: a digest of its CSRF secret (never the secret). */
export const sessionBinding = (csrfSecret: string) =>
  createHash('sha256').update(`oauth-connect:${csrfSecret}`).digest('base64url');

/**
 * Google and Microsoft accounts connected by OAuth (issue 22): the authorization code flow with PKCE that makes
 * their connections, the token source each of their drivers is opened with (refreshed under a lock per grant,
 * the refreshed tokens sealed back into storage), `needs_reauth` when the provider refuses the refresh token,
 * and the grant revoked at the provider when the last of its connections is removed.
 */
@Injectable()
export class OAuthConnections {
  private readonly logger = new Logger('OAuthConnections');

  constructor(
    @InjectRepository('connections') private readonly connections: ConnectionsRepository,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    @Inject(REFRESH_LOCK) private readonly lock: RefreshLock,
    private readonly box: SecretBox,
    private readonly address: PublicAddress,
  ) {}

  /** The clients this server may connect accounts of ("Connect Google" / "Connect Microsoft"). */
  clients(): ConfiguredOAuthClient[] {
    return configuredOAuthClients(this.config);
  }

  /** This server's exact callback, as registered at the provider. */
  callbackUrl(): string {
    return `${this.address.url}${PAGE_PATHS.oauthCallback}`;
  }

  /** Where /profile tells the person to connect an account again. */
  reconnectUrl(): string {
    return `${this.address.url}${PAGE_PATHS.profile}#connections`;
  }

  /**
   * Starts a connection: the provider's authorization URL and the pending connection, sealed and bound to the
   * web session (`binding`), for the browser to keep until the callback.
   */
  begin(userId: string, clientName: string, binding: string): { url: string; pending: string } | undefined {
    const client = this.clients().find((c) => c.name === clientName);
    if (!client) return undefined;
    const redirectUri = this.callbackUrl();
    const request = authorizationRequest(client.definition, {
      clientId: client.credentials.clientId,
      redirectUri,
    });
    const pending: PendingConnection = {
      client: client.name,
      userId,
      state: request.state,
      codeVerifier: request.codeVerifier,
      redirectUri,
      expiresAt: Date.now() + PENDING_LIFETIME_MS,
    };
    return {
      url: request.url,
      pending: this.box.seal(pending as unknown as Record<string, unknown>, `oauth-connect:${binding}`),
    };
  }

  /**
   * The callback: the pending connection must open under this web session, be this account's, fresh, and its
   * `state` the one sent back; then the code is redeemed (with the PKCE verifier, at the same redirect URI) and
   * the protocols' connections are made, or, for an account already connected, given the new grant.
   */
  async finish(
    userId: string,
    binding: string,
    sealedPending: string | undefined,
    query: { state?: string; code?: string; error?: string },
  ): Promise<{ title: string; email: string }> {
    const pending = this.openPending(sealedPending, binding);
    if (
      !pending ||
      pending.userId !== userId ||
      pending.expiresAt < Date.now() ||
      !sameText(query.state, pending.state)
    ) {
      throw new OAuthConnectRefused(
        'This connection was not started from this browser’s session, or it took too long. Start it again from your profile.',
      );
    }
    const client = this.clients().find((c) => c.name === pending.client);
    if (!client) throw new OAuthConnectRefused('This server no longer connects these accounts.');
    if (query.error || !query.code) {
      throw new OAuthConnectRefused(
        `${client.definition.title} did not grant access${query.error === 'access_denied' ? ' (you declined)' : ''}. Nothing was connected.`,
      );
    }
    let granted: GrantedTokens;
    try {
      granted = await redeemAuthorizationCode(client.definition, client.credentials, {
        code: query.code,
        codeVerifier: pending.codeVerifier,
        redirectUri: pending.redirectUri,
      });
    } catch (error) {
      const reason = error instanceof OAuthEndpointError ? error.error : 'no answer';
      this.logger.warn({ msg: 'authorization code refused', client: client.name, reason });
      throw new OAuthConnectRefused(
        `${client.definition.title} refused to complete the connection (${reason}).`,
      );
    }
    if (!granted.email) {
      throw new OAuthConnectRefused(`${client.definition.title} did not say which account this is.`);
    }
    await this.store(userId, client, granted.email, granted);
    return { title: client.definition.title, email: granted.email };
  }

  /** Makes (or renews) a connection per protocol the client speaks, sharing one new grant. */
  private async store(
    userId: string,
    client: ConfiguredOAuthClient,
    email: string,
    granted: GrantedTokens,
  ): Promise<void> {
    const grant = `grant_${randomBytes(12).toString('base64url')}`;
    const own = await this.connections.list(userId);
    for (const protocol of client.definition.speaks) {
      const secrets: OAuthSecrets = {
        oauth_client: client.name,
        grant,
        email,
        refresh_token: granted.refreshToken,
        // A client with tokens per resource gets each protocol's own at its first use.
        ...(client.definition.tokensPerResource
          ? {}
          : { access_token: granted.accessToken, expires_at: granted.expiresAt }),
      };
      const sealedSecrets = this.box.seal(secrets as unknown as Record<string, unknown>, userId);
      const settings = {
        ...client.settingsOf(protocol.family, protocol.provider, email),
        oauth_client: client.name,
        account: email,
      };
      const existing = own.find(
        (c) =>
          c.family === protocol.family &&
          c.provider === protocol.provider &&
          c.settings.oauth_client === client.name &&
          c.settings.account === email,
      );
      if (existing) {
        await this.connections.update(userId, existing.id, {
          settings,
          sealedSecrets,
          status: 'ok',
          lastError: null,
        });
        continue;
      }
      const taken = new Set(own.filter((c) => c.family === protocol.family).map((c) => c.name.toLowerCase()));
      let name = client.definition.title;
      for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${client.definition.title} ${n}`;
      await this.connections.create(userId, {
        family: protocol.family,
        provider: protocol.provider,
        name,
        settings,
        sealedSecrets,
        status: 'ok',
        lastError: null,
      });
    }
  }

  /**
   * The token source of a connection made by OAuth (undefined for any other): refreshed under the grant's lock,
   * the new tokens sealed into storage; a refused refresh token turns every connection of the grant to
   * `needs_reauth` and is said in words with the link to reconnect. `onStatusChanged`: the catalogue hears it.
   */
  tokenSource(
    userId: string,
    connection: ActiveConnection & { status?: StoredConnection['status'] },
    onStatusChanged: () => void,
  ): AccessTokenSource | undefined {
    const secrets = connection.secrets;
    if (!isOAuthSecrets(secrets)) return undefined;
    const client = this.clients().find((c) => c.name === secrets.oauth_client);
    const title = client?.definition.title ?? secrets.oauth_client;
    const words = () =>
      new NeedsReauthError(
        `Your ${title} connection “${connection.name}” needs to be connected again: ${title} no longer accepts it (its access was removed or has expired). Reconnect it at ${this.reconnectUrl()}`,
      );
    if (!client || connection.status === 'needs_reauth') {
      return { accessToken: async () => Promise.reject(words()) };
    }
    const protocol = client.definition.speaks.find(
      (p) => p.family === connection.family && p.provider === connection.provider,
    );
    const current =
      typeof secrets.access_token === 'string' && typeof secrets.expires_at === 'number'
        ? { accessToken: secrets.access_token, expiresAt: secrets.expires_at }
        : undefined;
    const inner = refreshingTokenSource({
      definition: client.definition,
      client: client.credentials,
      refreshToken: secrets.refresh_token,
      current,
      scopes: client.definition.tokensPerResource ? protocol?.scopes : undefined,
      serialize: (refresh) => this.lock.hold(`oauth-grant:${userId}:${secrets.grant}`, refresh),
      reload: async () => {
        const stored = await this.storedSecrets(userId, connection.id);
        return {
          refreshToken: stored?.refresh_token ?? secrets.refresh_token,
          current:
            typeof stored?.access_token === 'string' && typeof stored.expires_at === 'number'
              ? { accessToken: stored.access_token, expiresAt: stored.expires_at }
              : undefined,
        };
      },
      onRefresh: (tokens) => this.keepRefreshed(userId, connection.id, secrets.grant, tokens),
    });
    return {
      accessToken: async (options) => {
        try {
          return await inner.accessToken(options);
        } catch (error) {
          if (!(error instanceof NeedsReauthError)) throw error;
          await this.markNeedsReauth(userId, secrets.grant);
          onStatusChanged();
          throw words();
        }
      },
    };
  }

  private async storedSecrets(userId: string, id: string): Promise<OAuthSecrets | undefined> {
    const stored = await this.connections.get(userId, id);
    if (!stored) return undefined;
    const secrets = this.box.open(stored.sealedSecrets, userId);
    return isOAuthSecrets(secrets) ? secrets : undefined;
  }

  /** The refreshed access token to its connection; a rotated refresh token to every connection of the grant. */
  private async keepRefreshed(
    userId: string,
    id: string,
    grant: string,
    tokens: { accessToken: string; expiresAt: number; refreshToken: string },
  ): Promise<void> {
    for (const sibling of await this.grantConnections(userId, grant)) {
      const mine = sibling.connection.id === id;
      if (!mine && sibling.secrets.refresh_token === tokens.refreshToken) continue;
      const secrets: OAuthSecrets = {
        ...sibling.secrets,
        refresh_token: tokens.refreshToken,
        ...(mine ? { access_token: tokens.accessToken, expires_at: tokens.expiresAt } : {}),
      };
      await this.connections.update(userId, sibling.connection.id, {
        sealedSecrets: this.box.seal(secrets as unknown as Record<string, unknown>, userId),
      });
    }
  }

  private async markNeedsReauth(userId: string, grant: string): Promise<void> {
    for (const { connection } of await this.grantConnections(userId, grant)) {
      if (connection.status === 'needs_reauth') continue;
      await this.connections.update(userId, connection.id, {
        status: 'needs_reauth',
        lastError: 'the account no longer accepts this connection: connect it again',
      });
    }
  }

  private async grantConnections(
    userId: string,
    grant: string,
  ): Promise<Array<{ connection: StoredConnection; secrets: OAuthSecrets }>> {
    const found: Array<{ connection: StoredConnection; secrets: OAuthSecrets }> = [];
    for (const connection of await this.connections.list(userId)) {
      if (typeof connection.settings.oauth_client !== 'string') continue;
      const secrets = this.box.open(connection.sealedSecrets, userId);
      if (isOAuthSecrets(secrets) && secrets.grant === grant) found.push({ connection, secrets });
    }
    return found;
  }

  /**
   * After a connection was removed: when it was the last of its grant, the grant is revoked at the provider
   * (a provider without revocation, Microsoft, is left to the person's account page). A provider that does not
   * answer does not keep the connection: the refresh token is gone from here either way.
   */
  async removed(userId: string, removed: StoredConnection): Promise<void> {
    if (typeof removed.settings.oauth_client !== 'string') return;
    const secrets = this.box.open(removed.sealedSecrets, userId);
    if (!isOAuthSecrets(secrets)) return;
    if ((await this.grantConnections(userId, secrets.grant)).length > 0) return;
    const client = this.clients().find((c) => c.name === secrets.oauth_client);
    if (!client) return;
    await revokeGrant(client.definition, client.credentials, secrets.refresh_token).catch((error: unknown) =>
      this.logger.warn({
        msg: 'the grant could not be revoked at the provider',
        client: client.name,
        reason: error instanceof OAuthEndpointError ? error.error : (error as Error).message,
      }),
    );
  }

  private openPending(sealed: string | undefined, binding: string): PendingConnection | undefined {
    if (!sealed) return undefined;
    try {
      return this.box.open(sealed, `oauth-connect:${binding}`) as unknown as PendingConnection;
    } catch {
      // Sealed under another session (or forged): not this browser's.
      return undefined;
    }
  }
}

function sameText(given: string | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
