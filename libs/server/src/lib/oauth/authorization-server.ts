import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ALL_SCOPES, FIRST_PARTY_ONLY_SCOPES, type Scope } from '@assistant/contracts';
import type { Storage } from '@assistant/storage';
import type { TokenService } from '@assistant/auth';
import type { PublicAddress } from '../http/public-address';
import { storageAdapter } from './storage-adapter';

// oidc-provider is ESM-only: its types come in through `import type`, the module through `import()`.
type OidcModule = typeof import('oidc-provider', { with: { 'resolution-mode': 'import' } });
export type Provider = InstanceType<OidcModule['Provider']>;

/** What a third-party application may be granted: every scope but those for the first party alone (SPEC §2). */
export const DELEGABLE_SCOPES: readonly Scope[] = ALL_SCOPES.filter(
  (s) => !FIRST_PARTY_ONLY_SCOPES.includes(s),
);

/** Scopes of the authorization server itself rather than of this API. */
const OIDC_SCOPES = new Set(['openid', 'offline_access']);

/** The paths the authorization server answers itself; everything else under them is ours (interaction pages). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  registration: '/oauth/register',
  jwks: '/oauth/jwks',
  end_session: '/oauth/logout',
  userinfo: '/oauth/userinfo',
  pushed_authorization_request: '/oauth/par',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
} as const;

/** Where a user resolves a pending authorization: signs in, then allows or denies (our pages, not the provider's). */
export const INTERACTION_PATH = '/oauth/interaction';

/** SPEC §2's lifetimes, in seconds. */
export const OAUTH_LIFETIMES = {
  AuthorizationCode: 60,
  AccessToken: 15 * 60,
  RefreshToken: 30 * 24 * 3600,
  Grant: 365 * 24 * 3600,
  Interaction: 3600,
  Session: 14 * 24 * 3600,
  IdToken: 3600,
};

export interface AuthorizationServerOptions {
  storage: Storage;
  address: PublicAddress;
  tokens: TokenService;
  /** Signs the provider's cookies; without one (a self-hosted server before its key exists) a random one per start. */
  secret?: Buffer;
  trustProxy: boolean;
}

/**
 * Builds the OAuth 2.0 authorization server (oidc-provider, certified): authorization code with PKCE (S256 only,
 * required for every client), refresh tokens that rotate and revoke their grant when reused, revocation,
 * introspection, open dynamic client registration (MCP clients, native apps), and opaque access tokens bound to
 * this API as their audience, carrying delegable scopes only. Its records live in this server's database.
 */
export async function createAuthorizationServer(options: AuthorizationServerOptions): Promise<Provider> {
  const oidc = (await import('oidc-provider')) as OidcModule;
  const { storage, address } = options;
  const apiResource = address.apiResource;
  const Adapter = storageAdapter(
    storage.oauth,
    () => new oidc.errors.InvalidGrant('the code or refresh token was used already'),
  );
  const cookieKey = options.secret
    ? createHmac('sha256', options.secret).update('oauth-cookies').digest('base64url')
    : randomBytes(32).toString('base64url');
  const provider = new oidc.Provider(address.url, {
    adapter: Adapter,
    async findAccount(_ctx, id) {
      const user = await storage.users.findById(id);
      return user ? { accountId: user.id, claims: async () => ({ sub: user.id }) } : undefined;
    },
    routes: OAUTH_ROUTES,
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    scopes: ['offline_access'],
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // The one key of the keystore (no ID tokens are issued; the provider still checks clients against it).
      id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: true },
      revocation: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets this API; the grant's own resource on the token endpoint.
        defaultResource: async () => apiResource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, indicator) => {
          if (indicator !== apiResource) throw new oidc.errors.InvalidTarget(`unknown resource ${indicator}`);
          // The provider would drop a scope it does not know; an application asking for one (or for
          // write:account) is told so instead, before the user sees a consent page.
          const refused = String(ctx.oidc.params?.scope ?? '')
            .split(' ')
            .find(
              (scope) => scope && !OIDC_SCOPES.has(scope) && !(DELEGABLE_SCOPES as string[]).includes(scope),
            );
          if (refused) throw new oidc.errors.InvalidScope('this scope cannot be granted', refused);
          return {
            scope: DELEGABLE_SCOPES.join(' '),
            audience: apiResource,
            accessTokenFormat: 'opaque',
            accessTokenTTL: OAUTH_LIFETIMES.AccessToken,
          };
        },
      },
    },
    // Every client doing the code flow gets a refresh token, without having to ask for offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: OAUTH_LIFETIMES,
    cookies: { keys: [cookieKey] },
    // No ID tokens are issued (no openid scope is offered); the key only completes the provider's keystore.
    jwks: { keys: [signingKey()] },
  });
  provider.proxy = options.trustProxy;
  // A revoked grant or token leaves the verified-token cache at once (the self-hosted server keeps one).
  provider.on('grant.revoked', (_ctx: unknown, grantId: string) => options.tokens.forget({ grantId }));
  provider.on('access_token.destroyed', (token: { grantId?: string; jti: string }) => {
    if (token.grantId) options.tokens.forget({ grantId: token.grantId });
  });
  return provider;
}

/** Hands a request to the provider (a Koa app) as Node's request and response. */
export function providerCallback(
  provider: Provider,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return provider.callback() as unknown as (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

function signingKey(): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'ES256' };
}
