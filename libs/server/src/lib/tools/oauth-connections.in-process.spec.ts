/**
 * "Connect Google" end to end in-process, against the OAuth provider fixture standing in for Google
 * (`tools/workspace/services/oauth-fixture.sh`: oidc-provider on 9400, Dovecot with its oauth2 passdb on 10144,
 * bearer CalDAV in front of Radicale on 5233): the consent given headlessly (`POST /fixture/consent`), the
 * calendar read through caldav-oauth and the mail through imap-oauth, an expired access token refreshed, a grant
 * revoked at the provider turned into `needs_reauth` and said in words with the link, removal revoking the grant;
 * and the flow refused to a signed-out browser, another account's session, a missing or forged state, a
 * third-party app's bearer token, and a changed redirect URI.
 */
import { randomBytes } from 'node:crypto';
// Test only: the steps at the OAuth provider fixture, shared by the specs that connect Alice there.
// eslint-disable-next-line @nx/enforce-module-boundaries
import {
  consentAtFixture as consent,
  expireAtFixture,
  OAUTH_FIXTURE_ENDPOINTS,
  OAUTH_FIXTURE_MAIL_SETTINGS,
  OAUTH_FIXTURE_URL as FIXTURE,
  registerFixtureClient,
  revokeAtFixture,
  seedAliceCalendar,
} from '@assistant/test-services';
import type { LightMyRequestResponse } from 'fastify';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';
import { createAccount } from '../accounts/create-account';
import { SecretBox } from './secret-box';

const BEARER_CALDAV = process.env.ASSISTANT_TEST_BEARER_CALDAV_URL ?? 'http://127.0.0.1:5233';
/** Where the fixture is told this server is: never reached, since the test plays the browser. */
const PUBLIC_URL = 'http://127.0.0.1:7999';
const CALLBACK = `${PUBLIC_URL}/profile/connections/oauth/callback`;
const run = randomBytes(4).toString('hex');

/** This server's registration at the "Google" fixture, with its exact callback (a client per test run). */
const registerClient = () => registerFixtureClient({ redirectUri: CALLBACK, clientName: 'server spec' });

/** Alice's calendar with one event tomorrow, made with her password on Radicale behind the bearer CalDAV. */
const seededCalendar = async (name = 'connect') =>
  (await seedAliceCalendar({ name: `${name}-${run}`, summary: `Dentist ${run}` })).path;

let api: InProcessApp;
let client: { clientId: string; clientSecret: string };

beforeAll(async () => {
  client = await registerClient();
  const calendar = await seededCalendar();
  api = await startInProcessApp({
    config: {
      // Every request logged, so that a token in a log line would be seen.
      logLevel: 'debug',
      publicUrl: PUBLIC_URL,
      oauthClients: {
        google: {
          ...client,
          endpoints: OAUTH_FIXTURE_ENDPOINTS,
          protocolSettings: {
            'email/imap-oauth': OAUTH_FIXTURE_MAIL_SETTINGS,
            'calendar/caldav-oauth': { url: `${BEARER_CALDAV}${calendar}` },
          },
        },
      },
    },
  });
});
afterAll(() => api?.close());

async function signedIn(userId = api.userId): Promise<PageClient> {
  const browser = new PageClient(api);
  await browser.signInAs(userId);
  await browser.get('/profile');
  return browser;
}

/** "Connect Google" pressed: where the browser is sent (the provider's authorization URL). */
async function start(browser: PageClient): Promise<LightMyRequestResponse> {
  await browser.get('/profile');
  return browser.post('/profile/connections/oauth/google');
}

const pathOf = (url: URL) => `${url.pathname}${url.search}`;

/** The whole journey for this browser: start, consent, back at the callback. */
async function connectGoogle(browser: PageClient): Promise<LightMyRequestResponse> {
  const started = await start(browser);
  expect(started.statusCode).toBe(303);
  return browser.get(pathOf(await consent(String(started.headers.location))));
}

async function ask(text: string): Promise<string> {
  const res = await api.inject({
    method: 'POST',
    url: '/api/v1/queries',
    headers: { 'content-type': 'application/json' },
    payload: { text },
  });
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** What the assistant said: the text deltas of the stream, joined. */
const said = (body: string) =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: {"type":"output_text.delta"'))
    .map((line) => (JSON.parse(line.slice(6)) as { delta: string }).delta)
    .join('');

const oauthConnections = async (userId = api.userId) =>
  (await api.storage.connections.list(userId)).filter((c) => c.settings.oauth_client === 'google');

describe('Connect Google', () => {
  it('connects mail and calendar by consent at the provider, and reads them with the access token', async () => {
    const browser = await signedIn();
    const profile = await browser.get('/profile');
    expect(profile.body).toContain('action="/profile/connections/oauth/google"');
    expect(profile.body).toContain('Connect Google');

    const started = await start(browser);
    expect(started.statusCode).toBe(303);
    const authorization = new URL(String(started.headers.location));
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${FIXTURE}/auth`);
    expect(authorization.searchParams.get('redirect_uri')).toBe(CALLBACK);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const callback = await consent(authorization.href);
    const back = await browser.get(pathOf(callback));
    expect(back.statusCode).toBe(303);
    expect(back.headers.location).toBe('/profile#connections');

    const made = await oauthConnections();
    expect(made.map((c) => `${c.family}/${c.provider}`).sort()).toEqual([
      'calendar/caldav-oauth',
      'email/imap-oauth',
    ]);
    expect(made.every((c) => c.settings.account === 'alice@example.test')).toBe(true);
    // The refresh token is sealed: the row holds no token in clear, the API and the page show none.
    const box = api.app.get(SecretBox);
    const secrets = box.open(made[0].sealedSecrets, api.userId);
    const refreshToken = String(secrets.refresh_token);
    expect(refreshToken.length).toBeGreaterThan(10);
    expect(made[0].sealedSecrets).not.toContain(refreshToken);
    const listed = await api.inject({ method: 'GET', url: '/api/v1/connections' });
    expect(listed.body).not.toContain(refreshToken);
    expect(listed.body).not.toContain(String(secrets.access_token));
    expect((await browser.get('/profile')).body).not.toContain(refreshToken);

    expect(said(await ask("what's on my calendar tomorrow?"))).toContain(`Dentist ${run}`);
    // Dovecot's oauth2 passdb let the IMAP login in with the access token (XOAUTH2).
    expect(await ask('check my email')).toMatch(
      /"type":"tool_call.completed","call_id":"[^"]+","tool":"email_list","status":"ok"/,
    );

    const logs = JSON.stringify(api.logs());
    expect(logs).not.toContain(refreshToken);
    expect(logs).not.toContain(String(secrets.access_token));
    expect(logs).toContain('/profile/connections/oauth/callback');
    expect(logs).not.toContain(callback.searchParams.get('code')!);
  });

  it('refreshes an access token the provider expired, and keeps the new one sealed', async () => {
    const [calendar] = (await oauthConnections()).filter((c) => c.family === 'calendar');
    const box = api.app.get(SecretBox);
    const before = box.open(calendar.sealedSecrets, api.userId);
    const expired = await expireAtFixture(client.clientId);
    expect(expired.ok).toBe(true);
    expect(await ask("what's on my calendar tomorrow?")).toContain(`Dentist ${run}`);
    const after = box.open(
      (await api.storage.connections.get(api.userId, calendar.id))!.sealedSecrets,
      api.userId,
    );
    expect(after.access_token).not.toBe(before.access_token);
    expect((await api.storage.connections.get(api.userId, calendar.id))!.status).toBe('ok');
  });

  it('turns to needs_reauth when the grant is revoked at the provider, says so with the link, and offers Reconnect', async () => {
    expect((await revokeAtFixture(client.clientId)).ok).toBe(true);
    await expireAtFixture(client.clientId);
    const answer = said(await ask("what's on my calendar tomorrow?"));
    expect(answer).toContain('Your Google connection “Google” needs to be connected again');
    expect(answer).toContain(`Reconnect it at ${PUBLIC_URL}/profile#connections`);
    const connections = await oauthConnections();
    expect(connections.map((c) => c.status)).toEqual(['needs_reauth', 'needs_reauth']);
    const listed = (await (await api.inject({ method: 'GET', url: '/api/v1/connections' })).json()) as {
      data: Array<{ status: string }>;
    };
    expect(listed.data.filter((c) => c.status === 'needs_reauth')).toHaveLength(2);

    const browser = await signedIn();
    const profile = await browser.get('/profile');
    expect(profile.body).toContain('Needs reconnecting');
    expect(profile.body).toMatch(/aria-label="Reconnect Google"/);

    // Reconnecting gives the same connections the new grant.
    const back = await connectGoogle(browser);
    expect(back.statusCode).toBe(303);
    const renewed = await oauthConnections();
    expect(renewed.map((c) => c.id).sort()).toEqual(connections.map((c) => c.id).sort());
    expect(renewed.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(await ask("what's on my calendar tomorrow?")).toContain(`Dentist ${run}`);
  });

  it('is renamed and made the default like any other, but changes where it logs in only by connecting again', async () => {
    const [mail] = (await oauthConnections()).filter((c) => c.family === 'email');
    const renamed = await api.inject({
      method: 'PATCH',
      url: `/api/v1/connections/${mail.id}`,
      payload: { name: 'Gmail', default: true },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Gmail', default: true, provider: 'imap-oauth' });
    const repointed = await api.inject({
      method: 'PATCH',
      url: `/api/v1/connections/${mail.id}`,
      payload: {
        settings: { imap_host: 'elsewhere.example.com', imap_port: 993, smtp_host: 'elsewhere.example.com' },
      },
    });
    expect(repointed.statusCode).toBe(422);
    expect((await api.storage.connections.get(api.userId, mail.id))!.settings.imap_host).toBe('127.0.0.1');
    // Nothing to edit on /profile: Remove only (and Reconnect when it needs it).
    const page = (await (await signedIn()).get('/profile')).body;
    expect(page).not.toContain(`href="/profile/connections/${mail.id}"`);
    expect(page).toContain(`aria-label="Remove Gmail"`);
  });

  it('revokes the grant at the provider when the last of its connections is removed', async () => {
    const grants = async () =>
      (
        (await (await fetch(`${FIXTURE}/fixture/grants?client_id=${client.clientId}`)).json()) as {
          grants: unknown[];
        }
      ).grants;
    expect((await grants()).length).toBeGreaterThan(0);
    for (const c of await oauthConnections()) {
      const removed = await api.inject({ method: 'DELETE', url: `/api/v1/connections/${c.id}` });
      expect(removed.statusCode).toBe(204);
    }
    expect(await grants()).toEqual([]);
  });
});

describe('the connect flow refuses', () => {
  it('a signed-out browser, at the start and at the callback', async () => {
    // Without a session there is no CSRF token to send: the form is refused before anything starts.
    const browser = new PageClient(api);
    const started = await browser.post('/profile/connections/oauth/google', {}, 'forged');
    expect(started.statusCode).toBe(403);
    expect(started.headers.location).toBeUndefined();

    const signedInBrowser = await signedIn();
    const url = await consent(String((await start(signedInBrowser)).headers.location));
    const stranger = new PageClient(api);
    const res = await stranger.get(pathOf(url));
    expect(res.statusCode).toBe(403);
    expect(await oauthConnections()).toEqual([]);
  });

  it("another account's callback and state", async () => {
    const other = await createAccount(api.storage, {
      email: `other-${run}@example.test`,
      scopes: ['read:account'],
    });
    const victim = await signedIn();
    const url = await consent(String((await start(victim)).headers.location));
    // The attacker's browser, signed in to its own account, opens the victim's callback.
    const attacker = await signedIn(other.user_id);
    await start(attacker);
    const res = await attacker.get(pathOf(url));
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('not started from this browser’s session');
    // Even with the victim's pending cookie as well: it is sealed to the victim's web session and account.
    const victimStart = await start(victim);
    const victimUrl = await consent(String(victimStart.headers.location));
    attacker.cookies.set('assistant_oauth_connect', victim.cookies.get('assistant_oauth_connect')!);
    expect((await attacker.get(pathOf(victimUrl))).statusCode).toBe(400);
    expect(await oauthConnections(other.user_id)).toEqual([]);
    expect(await oauthConnections()).toEqual([]);
  });

  it('a missing or forged state', async () => {
    const browser = await signedIn();
    const url = await consent(String((await start(browser)).headers.location));
    const forged = new URL(url);
    forged.searchParams.set('state', randomBytes(32).toString('base64url'));
    expect((await browser.get(pathOf(forged))).statusCode).toBe(400);
    await start(browser);
    const missing = new URL(url);
    missing.searchParams.delete('state');
    expect((await browser.get(pathOf(missing))).statusCode).toBe(400);
    expect(await oauthConnections()).toEqual([]);
  });

  it('a connection of the OAuth providers made any other way: by the API or by a form', async () => {
    for (const [family, provider] of [
      ['email', 'imap-oauth'],
      ['calendar', 'caldav-oauth'],
      ['calendar', 'graph'],
    ]) {
      const res = await api.inject({
        method: 'POST',
        url: '/api/v1/connections',
        payload: { family, provider, settings: { url: 'https://calendar.example.com/' }, secrets: {} },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ errors: [{ field: 'provider' }] });
      const form = await (
        await signedIn()
      ).get(`/profile/connections/new?family=${family}&provider=${provider}`);
      expect(form.statusCode).toBe(404);
    }
    expect((await api.storage.connections.list(api.userId)).length).toBe(0);
  });

  it("a third-party app's bearer token on the start route", async () => {
    // Page routes read no bearer token: whatever its scopes, it is a browser without a session here.
    const res = await api.inject({
      method: 'POST',
      url: '/profile/connections/oauth/google',
      token: api.token,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers.location).toBeUndefined();
  });
});

describe('Connect Microsoft', () => {
  const GRAPH = process.env.ASSISTANT_TEST_GRAPH_URL ?? 'http://127.0.0.1:9401/v1.0';
  let microsoftApi: InProcessApp;
  let registered: { clientId: string; clientSecret: string };
  beforeAll(async () => {
    registered = await registerClient();
    microsoftApi = await startInProcessApp({
      config: {
        publicUrl: PUBLIC_URL,
        oauthClients: {
          // Microsoft's declaration at the fixture: tokens per resource, no revocation endpoint.
          microsoft: {
            ...registered,
            endpoints: { authorizationEndpoint: `${FIXTURE}/auth`, tokenEndpoint: `${FIXTURE}/token` },
            protocolSettings: {
              'email/imap-oauth': OAUTH_FIXTURE_MAIL_SETTINGS,
              'calendar/graph': { base_url: GRAPH },
            },
          },
        },
      },
    });
  });
  afterAll(() => microsoftApi?.close());

  it('connects mail over IMAP and the calendar through Graph, each with its own resource token', async () => {
    const browser = new PageClient(microsoftApi);
    await browser.signInAs(microsoftApi.userId);
    const profile = await browser.get('/profile');
    expect(profile.body).toContain('Connect Microsoft');
    expect(profile.body).not.toContain('Connect Google');
    const started = await browser.post('/profile/connections/oauth/microsoft');
    expect(started.statusCode).toBe(303);
    const back = await browser.get(pathOf(await consent(String(started.headers.location))));
    expect(back.statusCode).toBe(303);
    const made = await microsoftApi.storage.connections.list(microsoftApi.userId);
    expect(made.map((c) => `${c.family}/${c.provider}`).sort()).toEqual([
      'calendar/graph',
      'email/imap-oauth',
    ]);

    const query = async (text: string) =>
      (
        await microsoftApi.inject({
          method: 'POST',
          url: '/api/v1/queries',
          headers: { 'content-type': 'application/json' },
          payload: { text },
        })
      ).body;
    expect(await query("what's on my calendar tomorrow?")).toMatch(
      /"type":"tool_call.completed","call_id":"[^"]+","tool":"calendar_list_events","status":"ok"/,
    );
    expect(await query('check my email')).toMatch(
      /"type":"tool_call.completed","call_id":"[^"]+","tool":"email_list","status":"ok"/,
    );
    // Each protocol refreshed the grant with its own scopes, and keeps its own access token.
    const box = microsoftApi.app.get(SecretBox);
    const scopeOf = async (provider: string) => {
      const stored = (await microsoftApi.storage.connections.list(microsoftApi.userId)).find(
        (c) => c.provider === provider,
      )!;
      const token = String(box.open(stored.sealedSecrets, microsoftApi.userId).access_token);
      const reply = await fetch(`${FIXTURE}/token/introspection`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token,
          client_id: registered.clientId,
          client_secret: registered.clientSecret,
        }),
      });
      return String(((await reply.json()) as { scope?: string }).scope).split(' ');
    };
    const graph = await scopeOf('graph');
    expect(graph).toContain('Calendars.ReadWrite');
    expect(graph).not.toContain('https://outlook.office.com/IMAP.AccessAsUser.All');
    const mail = await scopeOf('imap-oauth');
    expect(mail).toContain('https://outlook.office.com/IMAP.AccessAsUser.All');
    expect(mail).not.toContain('Calendars.ReadWrite');
  });
});

describe('Connect Google on the hosted service', () => {
  /** A hosted app whose Google client points at the fixture on loopback; `allowed`: ASSISTANT_ALLOW_PRIVATE_HOSTS. */
  async function hostedWith(allowed: string[]) {
    const registered = await registerClient();
    const calendar = await seededCalendar(`hosted-${allowed.length}`);
    const hosted = await startInProcessApp({
      config: {
        deployment: 'hosted',
        allowPrivateHosts: allowed,
        publicUrl: PUBLIC_URL,
        oauthClients: {
          google: {
            ...registered,
            endpoints: { authorizationEndpoint: `${FIXTURE}/auth`, tokenEndpoint: `${FIXTURE}/token` },
            protocolSettings: { 'calendar/caldav-oauth': { url: `${BEARER_CALDAV}${calendar}` } },
          },
        },
      },
    });
    const browser = new PageClient(hosted);
    await browser.signInAs(hosted.userId);
    await browser.get('/profile');
    const started = await browser.post('/profile/connections/oauth/google');
    expect((await browser.get(pathOf(await consent(String(started.headers.location))))).statusCode).toBe(303);
    const answer = (
      await hosted.inject({
        method: 'POST',
        url: '/api/v1/queries',
        headers: { 'content-type': 'application/json' },
        payload: { text: "what's on my calendar tomorrow?" },
      })
    ).body;
    await hosted.close();
    return answer;
  }

  it('reaches a calendar on the private network only where the operator allowed it', async () => {
    expect(said(await hostedWith(['127.0.0.1']))).toContain(`Dentist ${run}`);
    const refused = await hostedWith([]);
    expect(said(refused)).not.toContain(`Dentist ${run}`);
    expect(refused).toMatch(/"tool":"calendar_list_events","status":"error"/);
  });
});
