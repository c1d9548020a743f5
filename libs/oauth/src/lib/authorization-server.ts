import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ALL_SCOPES, FIRST_PARTY_ONLY_SCOPES, problemOf, type Scope } from '@assistant/contracts';
import type { Storage } from '@assistant/storage';
import type { TokenService } from '@assistant/auth';
import { addressPolicy } from '@assistant/tool-kit';
import {
  type PublicAddress,
  PROVIDER_INTERACTION_COOKIE,
  PROVIDER_SESSION_COOKIE,
} from '@assistant/server-kit';
import { storageAdapter } from './storage-adapter';
import { clientMetadataRefusal } from './client-metadata';
import { CLIENT_DOCUMENT_LIMITS, clientDocumentFetch } from './client-document-fetch';
import { OAUTH_ROUTES } from './provider-routes';
import { renderProviderError } from './provider-pages';

// oidc-provider is ESM-only: its types come in through `import type`, the module through `import()`.
type OidcModule = typeof import('oidc-provider', { with: { 'resolution-mode': 'import' } });
export type Provider = InstanceType<OidcModule['Provider']>;

/** What a third-party application may be granted: every scope but those for the first party alone (SPEC §2). */
export const DELEGABLE_SCOPES: readonly Scope[] = ALL_SCOPES.filter(
  (s) => !FIRST_PARTY_ONLY_SCOPES.includes(s),
);

/**
 * Scopes of the authorization server itself rather than of this API: `offline_access` only. `openid` is refused:
 * this server issues no ID tokens — it would have to sign them with a key every instance shares and keeps across
 * restarts, for applications that get who the user is from `/api/v1/me` anyway (docs/api.md).
 */
const PROVIDER_SCOPES = new Set(['offline_access']);

export { OAUTH_ROUTES } from './provider-routes';

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

/**
 * How long a client ID metadata document is used before it is fetched again, in seconds: its own Cache-Control
 * within these bounds (one process keeps at most 100 documents, the provider's own cache).
 */
const METADATA_DOCUMENT_CACHE = { min: 5 * 60, max: 24 * 3600 };

export interface AuthorizationServerOptions {
  storage: Storage;
  address: PublicAddress;
  tokens: TokenService;
  /** Signs the provider's cookies; without one (a self-hosted server before its key exists) a random one per start. */
  secret?: Buffer;
  /** What the server may fetch on its own network (`ASSISTANT_ALLOW_PRIVATE_HOSTS`): client metadata documents. */
  allowPrivateHosts: readonly string[];
}

/**
 * Builds the OAuth 2.0 authorization server (oidc-provider, certified): authorization code with PKCE (S256 only,
 * required for every client), refresh tokens that rotate and revoke their grant when reused, revocation,
 * introspection, dynamic client registration (MCP clients, native apps; counted per address and purged unused)
 * and client ID metadata documents, and opaque access tokens bound to this API as their audience, carrying
 * delegable scopes only. No ID tokens, no pages of its own (logout, userinfo and the other OpenID parts are
 * off), answers in `query` only. Its records live in this server's database.
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
    scopes: [...PROVIDER_SCOPES],
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // The one key of the keystore (no ID tokens are issued; the provider still checks clients against it).
      id_token_signed_response_alg: 'ES256',
    },
    // Called once per listed property with the whole metadata: listing redirect_uris makes it run once for every
    // client, registered, stored or described by its metadata document.
    extraClientMetadata: {
      properties: ['redirect_uris'],
      validator(_ctx, key, _value, metadata) {
        if (key !== 'redirect_uris') return;
        const refusal = clientMetadataRefusal(metadata as Record<string, unknown>);
        if (refusal) throw new oidc.errors.InvalidClientMetadata(refusal);
        // The code comes back in the query string: no form_post page (an inline script), no fragment.
        metadata.response_modes = ['query'];
      },
    },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      introspection: { enabled: true },
      revocation: { enabled: true },
      registration: { enabled: true },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: METADATA_DOCUMENT_CACHE,
      },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets this API; the grant's own resource on the token endpoint.
        defaultResource: async () => apiResource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, indicator) => {
          if (indicator !== apiResource) throw new oidc.errors.InvalidTarget(`unknown resource ${indicator}`);
          // The provider would drop a scope it does not know; an application asking for one (or for
          // write:account, or openid) is told so instead, before the user sees a consent page.
          const refused = String(ctx.oidc.params?.scope ?? '')
            .split(' ')
            .find(
              (scope) =>
                scope && !PROVIDER_SCOPES.has(scope) && !(DELEGABLE_SCOPES as string[]).includes(scope),
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
    // Documents a client names are fetched only through the tools' address-checked request (B5).
    fetch: clientDocumentFetch(addressPolicy(options.allowPrivateHosts)),
    fetchResponseBodyLimits: {
      'client_id metadata document': CLIENT_DOCUMENT_LIMITS.metadataDocumentBytes,
      jwks_uri: CLIENT_DOCUMENT_LIMITS.otherDocumentBytes,
      sector_identifier_uri: CLIENT_DOCUMENT_LIMITS.otherDocumentBytes,
    },
    renderError: (ctx, out) => renderProviderError(ctx, out),
    // Every client doing the code flow gets a refresh token, without having to ask for offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: OAUTH_LIFETIMES,
    cookies: {
      keys: [cookieKey],
      names: { session: PROVIDER_SESSION_COOKIE, interaction: PROVIDER_INTERACTION_COOKIE },
    },
    // Completes the provider's keystore only: no ID token is issued, so nothing is signed with it and it is not
    // published (no jwks_uri).
    jwks: { keys: [signingKey()] },
  });
  // Host, scheme and client address come from X-Forwarded-*, which the host sets on every request it hands over
  // (`atPublicAddress`): the public address's, never the client's.
  provider.proxy = true;
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route === 'discovery') describeWhatIsServed(ctx.body as Record<string, unknown>);
    else if (ctx.status === 404 && ctx.body == null) {
      // Nothing answered (it should not happen: only served requests reach the provider): a problem, as elsewhere.
      ctx.type = 'application/problem+json';
      ctx.body = problemOf('not_found', 'nothing is at this URL', String(ctx.response.get('x-request-id')));
    }
  });
  // A revoked grant or token leaves the verified-token cache at once (the self-hosted server keeps one).
  provider.on('grant.revoked', (_ctx: unknown, grantId: string) => void options.tokens.forget({ grantId }));
  provider.on('access_token.destroyed', (token: { grantId?: string; jti: string }) => {
    if (token.grantId) void options.tokens.forget({ grantId: token.grantId });
  });
  return provider;
}

/**
 * The metadata says what is served here, no more: no OpenID Connect (no ID token, no keys, no claims), the API's
 * scopes, answers in the query string.
 */
function describeWhatIsServed(metadata: Record<string, unknown>): void {
  for (const openIdOnly of [
    'jwks_uri',
    'claims_supported',
    'claim_types_supported',
    'claims_parameter_supported',
    'id_token_signing_alg_values_supported',
    'subject_types_supported',
    'request_parameter_supported',
    'request_uri_parameter_supported',
  ]) {
    delete metadata[openIdOnly];
  }
  metadata.scopes_supported = [...DELEGABLE_SCOPES, ...PROVIDER_SCOPES];
  metadata.response_modes_supported = ['query'];
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
