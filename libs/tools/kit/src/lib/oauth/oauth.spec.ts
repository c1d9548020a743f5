import { googleOAuthClient } from './oauth-clients';
import {
  authorizationRequest,
  redeemAuthorizationCode,
  revokeGrant,
  type OAuthClientCredentials,
  type OAuthClientDefinition,
} from './oauth-client';
import { OAuthEndpointError } from './token-endpoint';
import { NeedsReauthError, refreshingTokenSource } from './token-source';

/** The OAuth provider fixture (`tools/workspace/services/oauth-fixture.sh`) standing in for Google. */
const FIXTURE = process.env.ASSISTANT_TEST_OAUTH_URL ?? 'http://127.0.0.1:9400';
const REDIRECT_URI = 'http://127.0.0.1/fixture-callback';
const google: OAuthClientDefinition = {
  ...googleOAuthClient,
  authorizationEndpoint: `${FIXTURE}/auth`,
  tokenEndpoint: `${FIXTURE}/token`,
  revocationEndpoint: `${FIXTURE}/token/revocation`,
};

/** A client of this test's own (RFC 7591), so that revoking its grants touches no other test's. */
async function registerClient(accessTokenTtl?: number): Promise<OAuthClientCredentials> {
  const reply = await fetch(`${FIXTURE}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'kit spec',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      ...(accessTokenTtl ? { x_fixture_access_token_ttl: accessTokenTtl } : {}),
    }),
  }).catch((error: Error) => {
    throw new Error(
      `no OAuth fixture at ${FIXTURE} (${error.message}); start tools/workspace/services/oauth-fixture.sh`,
    );
  });
  if (reply.status !== 201) throw new Error(`registration answered ${reply.status}: ${await reply.text()}`);
  const client = (await reply.json()) as { client_id: string; client_secret: string };
  return { clientId: client.client_id, clientSecret: client.client_secret };
}

/** Alice's answer on the consent page (the fixture plays the browser): where the provider sends her back. */
async function consent(url: string, decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const reply = await fetch(`${FIXTURE}/fixture/consent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authorization_url: url, decision }),
  });
  if (!reply.ok) throw new Error(`consent answered ${reply.status}: ${await reply.text()}`);
  return new URL(((await reply.json()) as { redirect: string }).redirect);
}

async function connect(client: OAuthClientCredentials) {
  const request = authorizationRequest(google, { clientId: client.clientId, redirectUri: REDIRECT_URI });
  const back = await consent(request.url);
  expect(back.searchParams.get('state')).toBe(request.state);
  return redeemAuthorizationCode(google, client, {
    code: back.searchParams.get('code')!,
    codeVerifier: request.codeVerifier,
    redirectUri: REDIRECT_URI,
  });
}

const fixturePost = (path: string, body: object) =>
  fetch(`${FIXTURE}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** A fetch that counts the token endpoint's calls. */
function countingFetch() {
  const calls: string[] = [];
  const counted: typeof fetch = (input, init) => {
    calls.push(String(input));
    return fetch(input, init);
  };
  return { calls, fetch: counted };
}

describe('an OAuth client connection against the provider fixture', () => {
  it('sends the user to consent with PKCE and state, and redeems the code for a refresh token and the email', async () => {
    const client = await registerClient();
    const request = authorizationRequest(google, { clientId: client.clientId, redirectUri: REDIRECT_URI });
    const asked = new URL(request.url);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('scope')).toBe(googleOAuthClient.scopes.join(' '));
    expect(asked.searchParams.get('access_type')).toBe('offline');
    const back = await consent(request.url);
    expect(back.searchParams.get('state')).toBe(request.state);
    const granted = await redeemAuthorizationCode(google, client, {
      code: back.searchParams.get('code')!,
      codeVerifier: request.codeVerifier,
      redirectUri: REDIRECT_URI,
    });
    expect(granted.refreshToken).toEqual(expect.any(String));
    expect(granted.email).toBe('alice@example.test');
    expect(granted.scope.split(' ')).toEqual(expect.arrayContaining(['https://mail.google.com/']));
    expect(granted.expiresAt).toBeGreaterThan(Date.now() + 30 * 60_000);
  });

  it('cannot redeem a code without its PKCE verifier, nor one the user denied', async () => {
    const client = await registerClient();
    const request = authorizationRequest(google, { clientId: client.clientId, redirectUri: REDIRECT_URI });
    const back = await consent(request.url);
    await expect(
      redeemAuthorizationCode(google, client, {
        code: back.searchParams.get('code')!,
        codeVerifier: authorizationRequest(google, { clientId: client.clientId, redirectUri: REDIRECT_URI })
          .codeVerifier,
        redirectUri: REDIRECT_URI,
      }),
    ).rejects.toMatchObject({ name: 'OAuthEndpointError', error: 'invalid_grant' });
    const denied = await consent(
      authorizationRequest(google, { clientId: client.clientId, redirectUri: REDIRECT_URI }).url,
      'deny',
    );
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('code')).toBeNull();
  });

  it('hands out the access token while it is fresh and refreshes it before it expires, once for all callers', async () => {
    const client = await registerClient();
    const granted = await connect(client);
    let clock = Date.now();
    const counting = countingFetch();
    const stored: string[] = [];
    const source = refreshingTokenSource({
      definition: google,
      client,
      refreshToken: granted.refreshToken,
      current: { accessToken: granted.accessToken, expiresAt: granted.expiresAt },
      onRefresh: (tokens) => void stored.push(tokens.accessToken),
      fetch: counting.fetch,
      now: () => clock,
    });
    await expect(source.accessToken()).resolves.toBe(granted.accessToken);
    expect(counting.calls).toEqual([]);
    // Thirty seconds before it expires: inside the margin, refreshed before anyone is refused.
    clock = granted.expiresAt - 30_000;
    const tokens = await Promise.all([source.accessToken(), source.accessToken(), source.accessToken()]);
    expect(counting.calls).toEqual([google.tokenEndpoint]);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(granted.accessToken);
    expect(stored).toEqual([tokens[0]]);
  });

  it('fetches a new token when the server refused the current one (expired early at the provider), only once', async () => {
    const client = await registerClient();
    const granted = await connect(client);
    const counting = countingFetch();
    const source = refreshingTokenSource({
      definition: google,
      client,
      refreshToken: granted.refreshToken,
      current: { accessToken: granted.accessToken, expiresAt: granted.expiresAt },
      fetch: counting.fetch,
    });
    const expired = await fixturePost('/fixture/expire', { token: granted.accessToken });
    expect(await expired.json()).toEqual({ expired: 1 });
    const fresh = await source.accessToken({ rejected: granted.accessToken });
    expect(fresh).not.toBe(granted.accessToken);
    // Another caller that was refused the old token gets the new one without a second refresh.
    await expect(source.accessToken({ rejected: granted.accessToken })).resolves.toBe(fresh);
    expect(counting.calls).toHaveLength(1);
  });

  it('refreshes a connection once across instances: the second, under the same lock, takes the stored token', async () => {
    const client = await registerClient();
    const granted = await connect(client);
    // What the server stores per connection (sealed, in its database) and its lock across instances (Redis).
    const stored = {
      refreshToken: granted.refreshToken,
      current: { accessToken: granted.accessToken, expiresAt: granted.expiresAt },
    };
    let lock: Promise<unknown> = Promise.resolve();
    const serialize = <T>(work: () => Promise<T>): Promise<T> => {
      const turn = lock.then(work);
      lock = turn.catch(() => undefined);
      return turn;
    };
    const counting = countingFetch();
    const instance = () =>
      refreshingTokenSource({
        definition: google,
        client,
        refreshToken: stored.refreshToken,
        current: { ...stored.current },
        serialize,
        reload: async () => ({ refreshToken: stored.refreshToken, current: { ...stored.current } }),
        onRefresh: (tokens) => {
          stored.refreshToken = tokens.refreshToken;
          stored.current = { accessToken: tokens.accessToken, expiresAt: tokens.expiresAt };
        },
        fetch: counting.fetch,
      });
    const [one, two] = [instance(), instance()];
    // Both instances were refused the same expired token at the same time.
    const tokens = await Promise.all([
      one.accessToken({ rejected: granted.accessToken }),
      two.accessToken({ rejected: granted.accessToken }),
    ]);
    expect(counting.calls).toHaveLength(1);
    expect(tokens[0]).toBe(tokens[1]);
    expect(tokens[0]).not.toBe(granted.accessToken);
  });

  it('turns a grant revoked at the provider into needs_reauth, and stops asking the provider', async () => {
    const client = await registerClient();
    const granted = await connect(client);
    const counting = countingFetch();
    const source = refreshingTokenSource({
      definition: google,
      client,
      refreshToken: granted.refreshToken,
      fetch: counting.fetch,
    });
    await fixturePost('/fixture/revoke', { client_id: client.clientId });
    const refused = await source.accessToken().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NeedsReauthError);
    expect(refused).toMatchObject({
      code: 'needs_reauth',
      message: expect.stringContaining('connect it again'),
    });
    expect(String((refused as Error).message)).not.toContain(granted.refreshToken);
    await expect(source.accessToken()).rejects.toBe(refused);
    expect(counting.calls).toHaveLength(1);
  });

  it('revokes the grant at the provider when the connection is removed (RFC 7009)', async () => {
    const client = await registerClient();
    const granted = await connect(client);
    const grants = async () =>
      (
        (await (await fetch(`${FIXTURE}/fixture/grants?client_id=${client.clientId}`)).json()) as {
          grants: [];
        }
      ).grants;
    expect(await grants()).toHaveLength(1);
    await revokeGrant(google, client, granted.refreshToken);
    expect(await grants()).toHaveLength(0);
    const source = refreshingTokenSource({ definition: google, client, refreshToken: granted.refreshToken });
    await expect(source.accessToken()).rejects.toBeInstanceOf(NeedsReauthError);
  });

  it('gives a client registered with a short access token lifetime tokens that short, refreshed when they lapse', async () => {
    const client = await registerClient(2);
    const before = Date.now();
    const granted = await connect(client);
    expect(granted.expiresAt - before).toBeLessThanOrEqual(2_000 + 1_000);
    const source = refreshingTokenSource({
      definition: google,
      client,
      refreshToken: granted.refreshToken,
      current: { accessToken: granted.accessToken, expiresAt: granted.expiresAt },
      marginMs: 0,
    });
    await expect(source.accessToken()).resolves.toBe(granted.accessToken);
    await new Promise((resolve) => setTimeout(resolve, granted.expiresAt - Date.now() + 100));
    const introspected = await fetch(`${FIXTURE}/token/introspection`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('graph-fixture:graph-fixture-secret').toString('base64')}`,
      },
      body: new URLSearchParams({ token: granted.accessToken }),
    });
    await expect(introspected.json()).resolves.toEqual({ active: false });
    await expect(source.accessToken()).resolves.not.toBe(granted.accessToken);
  });

  it('says a transient failure of the token endpoint as such, not as needs_reauth', async () => {
    const source = refreshingTokenSource({
      definition: { ...google, tokenEndpoint: 'http://127.0.0.1:9/token' },
      client: { clientId: 'x', clientSecret: 'y' },
      refreshToken: 'r',
    });
    const failed = await source.accessToken().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OAuthEndpointError);
    expect(failed).toMatchObject({ error: 'unreachable' });
  });
});
