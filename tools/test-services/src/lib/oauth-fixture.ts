/**
 * The steps a test takes at the OAuth provider fixture (`tools/workspace/services/oauth-fixture.sh`: oidc-provider
 * on 127.0.0.1:9400 standing in for Google and Microsoft, Alice being alice@example.test there): register a client
 * of the test's own, give Alice's consent headlessly, expire or revoke a grant; and the seeded calendar the bearer
 * CalDAV in front of Radicale serves. The code of the callback is the test's to redeem (a server does it itself);
 * `connectAliceAtFixture` redeems it with the OAuth client functions the test hands in (@assistant/tool-kit's),
 * since this package depends on none of the workspace's libraries.
 */
import { randomBytes } from 'node:crypto';

/** Where the fixture is: `ASSISTANT_TEST_OAUTH_URL`, by default 127.0.0.1:9400. */
export const OAUTH_FIXTURE_URL = process.env.ASSISTANT_TEST_OAUTH_URL ?? 'http://127.0.0.1:9400';
/** Radicale (calendar.sh), where the calendar behind the bearer CalDAV is seeded with Alice's password. */
const RADICALE_URL = process.env.ASSISTANT_TEST_CALDAV_URL ?? 'http://127.0.0.1:5232';

/** The fixture's endpoints, as a server's OAuth client declares them (`endpoints`). */
export const OAUTH_FIXTURE_ENDPOINTS = {
  authorizationEndpoint: `${OAUTH_FIXTURE_URL}/auth`,
  tokenEndpoint: `${OAUTH_FIXTURE_URL}/token`,
  revocationEndpoint: `${OAUTH_FIXTURE_URL}/token/revocation`,
};

/**
 * The settings of imap-oauth for the fixture's Dovecot, whose oauth2 passdb introspects the bearer: IMAP on 10144,
 * submission on 10587 (relaying to mail.sh's OpenSMTPD), no TLS.
 */
export const OAUTH_FIXTURE_MAIL_SETTINGS = {
  imap_host: '127.0.0.1',
  imap_port: 10144,
  imap_tls: false,
  smtp_host: '127.0.0.1',
  smtp_port: 10587,
  smtp_tls: false,
};

/** A client registered at the fixture. */
export interface FixtureClient {
  clientId: string;
  clientSecret: string;
}

/** A JSON POST to one of the fixture's endpoints (`/reg`, `/fixture/consent`, `/fixture/expire`, …). */
export function oauthFixturePost(path: string, body: object): Promise<Response> {
  return fetch(`${OAUTH_FIXTURE_URL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A client of the test's own at the fixture (dynamic registration), with its exact redirect URI. */
export async function registerFixtureClient(options: {
  redirectUri: string;
  clientName?: string;
}): Promise<FixtureClient> {
  const reply = await oauthFixturePost('/reg', {
    ...(options.clientName ? { client_name: options.clientName } : {}),
    redirect_uris: [options.redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  }).catch((error: Error) => {
    throw new Error(
      `no OAuth fixture at ${OAUTH_FIXTURE_URL} (${error.message}); start tools/workspace/services/oauth-fixture.sh`,
    );
  });
  if (reply.status !== 201) throw new Error(`registration answered ${reply.status}: ${await reply.text()}`);
  const client = (await reply.json()) as { client_id: string; client_secret: string };
  return { clientId: client.client_id, clientSecret: client.client_secret };
}

/** Alice allows the authorization request at the fixture: the callback URL it sends the browser back to. */
export async function consentAtFixture(authorizationUrl: string): Promise<URL> {
  const reply = await oauthFixturePost('/fixture/consent', { authorization_url: authorizationUrl });
  if (!reply.ok) throw new Error(`consent answered ${reply.status}: ${await reply.text()}`);
  return new URL(((await reply.json()) as { redirect: string }).redirect);
}

/** The fixture expires the client's access tokens: the next use is refused and must refresh. */
export const expireAtFixture = (clientId: string) =>
  oauthFixturePost('/fixture/expire', { client_id: clientId });
/** The fixture revokes the client's grant, as the person removing the app in their account would. */
export const revokeAtFixture = (clientId: string) =>
  oauthFixturePost('/fixture/revoke', { client_id: clientId });

/** The OAuth client under test, as @assistant/tool-kit declares it: what `connectAliceAtFixture` needs of it. */
export interface OAuthClientFunctions<Definition, Tokens> {
  authorizationRequest(
    definition: Definition,
    options: { clientId: string; redirectUri: string },
  ): { url: string; codeVerifier: string };
  redeemAuthorizationCode(
    definition: Definition,
    client: FixtureClient,
    options: { code: string; codeVerifier: string; redirectUri: string },
  ): Promise<{ accessToken: string; expiresAt: number; refreshToken: string }>;
  refreshingTokenSource(options: {
    definition: Definition;
    client: FixtureClient;
    refreshToken: string;
    current?: { accessToken: string; expiresAt: number };
    scopes?: readonly string[];
    onRefresh?(tokens: { accessToken: string }): void;
  }): Tokens;
}

/**
 * Alice connects an account through `oauth`: a client of this test's own, her consent to the definition's scopes,
 * the code redeemed, and a refreshing token source over the grant (asking `scopes` at each refresh). `refreshed`
 * collects the access token of each refresh.
 */
export async function connectAliceAtFixture<Definition, Tokens>(
  oauth: OAuthClientFunctions<Definition, Tokens>,
  definition: Definition,
  options: { redirectUri?: string; scopes?: readonly string[] } = {},
): Promise<{ client: FixtureClient; tokens: Tokens; refreshed: string[] }> {
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1/fixture-callback';
  const client = await registerFixtureClient({ redirectUri });
  const request = oauth.authorizationRequest(definition, { clientId: client.clientId, redirectUri });
  const granted = await oauth.redeemAuthorizationCode(definition, client, {
    code: (await consentAtFixture(request.url)).searchParams.get('code')!,
    codeVerifier: request.codeVerifier,
    redirectUri,
  });
  const refreshed: string[] = [];
  const tokens = oauth.refreshingTokenSource({
    definition,
    client,
    refreshToken: granted.refreshToken,
    current: { accessToken: granted.accessToken, expiresAt: granted.expiresAt },
    scopes: options.scopes,
    onRefresh: (t) => void refreshed.push(t.accessToken),
  });
  return { client, tokens, refreshed };
}

/**
 * A new calendar of Alice's on Radicale (`/alice/<name>/`, made with her password) holding one event, `summary`,
 * tomorrow (now + 24 h, by its UTC date) from 09:00 to 10:00 UTC. `tomorrow`: that instant.
 */
export async function seedAliceCalendar(options: {
  name?: string;
  summary: string;
}): Promise<{ path: string; tomorrow: Date }> {
  const name = options.name ?? `oauth-${randomBytes(4).toString('hex')}`;
  const path = `/alice/${name}/`;
  const auth = `Basic ${Buffer.from('alice:secret').toString('base64')}`;
  const made = await fetch(`${RADICALE_URL}${path}`, {
    method: 'MKCALENDAR',
    headers: { authorization: auth },
  });
  if (made.status !== 201) throw new Error(`MKCALENDAR answered ${made.status}`);
  const tomorrow = new Date(Date.now() + 24 * 3600_000);
  const day = tomorrow.toISOString().slice(0, 10).replaceAll('-', '');
  await fetch(`${RADICALE_URL}${path}event.ics`, {
    method: 'PUT',
    headers: { authorization: auth, 'content-type': 'text/calendar' },
    body: [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      `UID:${name}`,
      'DTSTAMP:20261101T000000Z',
      `SUMMARY:${options.summary}`,
      `DTSTART:${day}T090000Z`,
      `DTEND:${day}T100000Z`,
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n'),
  });
  return { path, tomorrow };
}
