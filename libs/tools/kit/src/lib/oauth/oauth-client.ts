import { createHash, randomBytes } from 'node:crypto';
import { OAuthEndpointError, postForm, type TokenResponse } from './token-endpoint';

/**
 * What a connection made by OAuth then speaks: one provider of one family (`email`/`imap-oauth`,
 * `calendar`/`caldav-oauth`, `calendar`/`graph`), the scopes its access tokens need, and its settings for the
 * account that consented (the mailbox is the account's email address).
 */
export interface OAuthProtocol {
  family: string;
  provider: string;
  /** The scopes its access tokens must carry; a client with `tokensPerResource` asks for them at each refresh. */
  scopes: readonly string[];
  settings(account: { email: string }): Record<string, unknown>;
}

/**
 * An OAuth 2.0 client connection (Google, Microsoft): where the user consents and where tokens are fetched, what
 * is asked for, and the protocols the connection then speaks with its access tokens. The client id and secret
 * are not here: they are the operator's (hosted) or the owner's (self-hosted) settings.
 */
export interface OAuthClientDefinition {
  /** `google`, `microsoft`: lowercase, stable (stored with the connection). */
  name: string;
  /** What the person sees: "Connect Google". */
  title: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** RFC 7009; absent when the provider has none (Microsoft: the user removes the app in their account). */
  revocationEndpoint?: string;
  /** Every scope asked for at consent: the protocols' and those that name the account (openid email). */
  scopes: readonly string[];
  /** Extra authorization parameters (Google: `access_type=offline` and `prompt=consent` for a refresh token). */
  authorizationParams?: Readonly<Record<string, string>>;
  /** How the client authenticates at the token endpoint (default `client_secret_post`). */
  clientAuth?: 'client_secret_post' | 'client_secret_basic';
  /**
   * Microsoft's v2 endpoint gives an access token for one resource at a time: the refresh token is redeemed per
   * protocol with that protocol's scopes. Google's one token serves every protocol.
   */
  tokensPerResource?: boolean;
  speaks: readonly OAuthProtocol[];
}

/** The operator's or owner's registration of this server at the provider. */
export interface OAuthClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** Checks a declaration once, where it is written. */
export function defineOAuthClient(definition: OAuthClientDefinition): OAuthClientDefinition {
  if (!/^[a-z][a-z0-9]*$/.test(definition.name)) {
    throw new Error(`OAuth client name ${definition.name} must be lowercase letters and digits`);
  }
  const asked = new Set(definition.scopes);
  for (const protocol of definition.speaks) {
    const missing = protocol.scopes.find((scope) => !asked.has(scope));
    if (missing) {
      throw new Error(
        `${definition.name}: ${protocol.family}/${protocol.provider} needs ${missing}, which is not asked for`,
      );
    }
  }
  return definition;
}

/** One authorization request: the URL to send the browser to, and what the callback must check and send back. */
export interface AuthorizationRequest {
  url: string;
  /** Bound to the user's web session by the caller; the callback's `state` must equal it. */
  state: string;
  /** Kept server-side until the callback (PKCE, RFC 7636): the code is worthless without it. */
  codeVerifier: string;
}

const randomToken = () => randomBytes(32).toString('base64url');

/** The authorization code request with PKCE (S256) and a fresh `state`. */
export function authorizationRequest(
  definition: OAuthClientDefinition,
  options: { clientId: string; redirectUri: string; loginHint?: string },
): AuthorizationRequest {
  const state = randomToken();
  const codeVerifier = randomToken();
  const url = new URL(definition.authorizationEndpoint);
  const params: Record<string, string> = {
    ...definition.authorizationParams,
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: definition.scopes.join(' '),
    state,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(options.loginHint ? { login_hint: options.loginHint } : {}),
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return { url: url.href, state, codeVerifier };
}

/** What the token endpoint granted at consent: the refresh token is the connection's one lasting secret. */
export interface GrantedTokens {
  accessToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  refreshToken: string;
  scope: string;
  /** The account's email, from the ID token the token endpoint sent (when `openid email` was asked). */
  email?: string;
}

/**
 * Redeems the code of the callback (with its PKCE verifier) at the token endpoint. A refusal is an
 * `OAuthEndpointError` with the provider's `error` code; a grant without a refresh token is refused too, since
 * the connection could not outlive its first access token.
 */
export async function redeemAuthorizationCode(
  definition: OAuthClientDefinition,
  client: OAuthClientCredentials,
  options: {
    code: string;
    codeVerifier: string;
    redirectUri: string;
    fetch?: typeof globalThis.fetch;
    now?: () => number;
  },
): Promise<GrantedTokens> {
  const now = options.now ?? Date.now;
  const reply: TokenResponse = await postForm(
    definition.tokenEndpoint,
    definition.clientAuth ?? 'client_secret_post',
    client,
    {
      grant_type: 'authorization_code',
      code: options.code,
      code_verifier: options.codeVerifier,
      redirect_uri: options.redirectUri,
    },
    options.fetch,
  );
  if (!reply.refresh_token) {
    throw new OAuthEndpointError(
      'no_refresh_token',
      `${definition.title} granted no refresh token (is offline access asked for?)`,
    );
  }
  return {
    accessToken: reply.access_token,
    expiresAt: now() + (reply.expires_in ?? 3600) * 1000,
    refreshToken: reply.refresh_token,
    scope: reply.scope ?? definition.scopes.join(' '),
    email: emailOfIdToken(reply.id_token),
  };
}

/**
 * Revokes the grant at the provider (RFC 7009) when the connection is removed, by its refresh token. A provider
 * without a revocation endpoint: nothing to call (the person removes the app in their account).
 */
export async function revokeGrant(
  definition: OAuthClientDefinition,
  client: OAuthClientCredentials,
  refreshToken: string,
  fetchImpl?: typeof globalThis.fetch,
): Promise<void> {
  if (!definition.revocationEndpoint) return;
  await postForm(
    definition.revocationEndpoint,
    definition.clientAuth ?? 'client_secret_post',
    client,
    { token: refreshToken, token_type_hint: 'refresh_token' },
    fetchImpl,
    { expectJson: false },
  );
}

/**
 * The `email` claim of an ID token received straight from the token endpoint over TLS, which OpenID Connect
 * Core (3.1.3.7) lets a client take without checking the signature.
 */
function emailOfIdToken(idToken: string | undefined): string | undefined {
  const payload = idToken?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    // Microsoft sends `email` only when the account has one set; its sign-in name is the address otherwise.
    const email = [claims.email, claims.preferred_username].find(
      (value): value is string => typeof value === 'string' && value.includes('@'),
    );
    return email;
  } catch {
    return undefined;
  }
}
