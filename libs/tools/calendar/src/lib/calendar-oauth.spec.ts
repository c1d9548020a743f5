import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// Test only: the steps at the OAuth provider fixture, shared by the specs that connect Alice there.
// eslint-disable-next-line @nx/enforce-module-boundaries
import {
  connectAliceAtFixture,
  expireAtFixture,
  OAUTH_FIXTURE_URL,
  revokeAtFixture,
  seedAliceCalendar,
} from '@assistant/test-services';
import {
  authorizationRequest,
  ConnectionTestError,
  googleOAuthClient,
  microsoftOAuthClient,
  NeedsReauthError,
  redeemAuthorizationCode,
  refreshingTokenSource,
  type AccessTokenSource,
  type OAuthClientDefinition,
} from '@assistant/tool-kit';
import { caldavOAuthProvider } from './caldav-oauth.provider';
import type { CalendarDriver } from './calendar.driver';
import { graphProvider } from './graph.provider';

/**
 * The OAuth test ground (`tools/workspace/services/oauth-fixture.sh`): the provider fixture standing in for
 * Google and Microsoft, CalDAV behind nginx checking the bearer by introspection (127.0.0.1:5233, in front of
 * calendar.sh's Radicale), and the Microsoft Graph calendar fixture (127.0.0.1:9401).
 */
const BEARER_CALDAV = process.env.ASSISTANT_TEST_BEARER_CALDAV_URL ?? 'http://127.0.0.1:5233';
const GRAPH = process.env.ASSISTANT_TEST_GRAPH_URL ?? 'http://127.0.0.1:9401/v1.0';
const atFixture = (definition: OAuthClientDefinition): OAuthClientDefinition => ({
  ...definition,
  authorizationEndpoint: `${OAUTH_FIXTURE_URL}/auth`,
  tokenEndpoint: `${OAUTH_FIXTURE_URL}/token`,
});
const google = atFixture(googleOAuthClient);
const microsoft = atFixture(microsoftOAuthClient);
const BERLIN = 'Europe/Berlin';
const run = randomBytes(4).toString('hex');
const signal = new AbortController().signal;
const envWith = (accessTokens: AccessTokenSource) => ({
  deployment: 'self-hosted' as const,
  allowPrivateHosts: [],
  localFolders: [],
  signal,
  accessTokens,
});

/** Alice connects an account: a client of this test's own, her consent to `scopes`, the code redeemed. */
const connectAlice = (definition: OAuthClientDefinition, protocolScopes?: readonly string[]) =>
  connectAliceAtFixture(
    { authorizationRequest, redeemAuthorizationCode, refreshingTokenSource },
    definition,
    { scopes: protocolScopes },
  );

/** A fresh calendar of Alice's on Radicale with one event tomorrow at 10:00 Berlin time, seeded with her password. */
const seededCalendar = () => seedAliceCalendar({ summary: `Dentist ${run}` });

const dayAround = (date: Date) => [
  new Date(date.getTime() - 24 * 3600_000),
  new Date(date.getTime() + 24 * 3600_000),
];

describe('Google Calendar over CalDAV with a bearer token (nginx introspecting it, Radicale behind)', () => {
  it('lists and creates events with the access token', async () => {
    const { tokens, refreshed } = await connectAlice(google);
    const { path, tomorrow } = await seededCalendar();
    const calendar = await caldavOAuthProvider.open(
      { settings: { url: `${BEARER_CALDAV}${path}` }, secrets: {} },
      envWith(tokens),
    );
    const [from, to] = dayAround(tomorrow);
    expect((await calendar.events(from, to, BERLIN)).map((e) => e.title)).toEqual([`Dentist ${run}`]);
    const start = new Date(tomorrow.getTime() + 3 * 3600_000);
    await calendar.create(
      { title: `Lunch ${run}`, start, end: new Date(start.getTime() + 3600_000) },
      BERLIN,
    );
    expect((await calendar.events(from, to, BERLIN)).map((e) => e.title)).toContain(`Lunch ${run}`);
    expect(refreshed).toEqual([]);
  });

  it('refreshes the token transparently when the server refuses an expired one', async () => {
    const { client, tokens, refreshed } = await connectAlice(google);
    const { path, tomorrow } = await seededCalendar();
    const calendar = await caldavOAuthProvider.open(
      { settings: { url: `${BEARER_CALDAV}${path}` }, secrets: {} },
      envWith(tokens),
    );
    await expireAtFixture(client.clientId);
    const [from, to] = dayAround(tomorrow);
    expect(await calendar.events(from, to, BERLIN)).toHaveLength(1);
    expect(refreshed).toHaveLength(1);
  });

  it('is refused with a token the provider does not know, or one without the calendar scope', async () => {
    const { path } = await seededCalendar();
    const open = (tokens: AccessTokenSource) =>
      caldavOAuthProvider
        .open({ settings: { url: `${BEARER_CALDAV}${path}` }, secrets: {} }, envWith(tokens))
        .catch((error: unknown) => error);
    expect(await open({ accessToken: async () => 'not-a-token-of-the-provider' })).toBeInstanceOf(
      ConnectionTestError,
    );
    const mailOnly = await connectAlice({
      ...google,
      scopes: ['openid', 'email', 'https://mail.google.com/'],
    });
    expect(await open(mailOnly.tokens)).toBeInstanceOf(ConnectionTestError);
  });

  it('says needs_reauth when the grant was revoked at the provider', async () => {
    const { client, tokens } = await connectAlice(google);
    const { path } = await seededCalendar();
    await revokeAtFixture(client.clientId);
    const refused = await caldavOAuthProvider
      .open({ settings: { url: `${BEARER_CALDAV}${path}` }, secrets: {} }, envWith(tokens))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NeedsReauthError);
  });
});

describe('a Microsoft calendar through Graph (the Graph fixture, introspecting the token)', () => {
  const graphScopes = microsoftOAuthClient.speaks.find((p) => p.provider === 'graph')!.scopes;
  const open = async (tokens: AccessTokenSource) =>
    graphProvider.open(
      { settings: graphProvider.settings.parse({ base_url: GRAPH }), secrets: {} },
      envWith(tokens),
    );

  it('creates, lists, moves and deletes events in Graph’s shapes, in the user’s time zone', async () => {
    const { tokens } = await connectAlice(microsoft, graphScopes);
    const calendar: CalendarDriver = await open(tokens);
    await expect(graphProvider.test(calendar, signal)).resolves.toBeUndefined();
    const start = new Date('2026-12-03T08:00:00Z');
    const created = await calendar.create(
      { title: `Review ${run}`, start, end: new Date('2026-12-03T09:30:00Z'), location: 'Room 4' },
      BERLIN,
    );
    expect(created).toMatchObject({
      title: `Review ${run}`,
      start: '2026-12-03T09:00:00+01:00',
      end: '2026-12-03T10:30:00+01:00',
      location: 'Room 4',
      all_day: false,
      recurring: false,
    });
    const day = [new Date('2026-12-03T00:00:00Z'), new Date('2026-12-04T00:00:00Z')] as const;
    expect((await calendar.events(...day, BERLIN)).map((e) => e.id)).toContain(created.id);
    const moved = await calendar.move(created.id, new Date('2026-12-03T13:00:00Z'), undefined, BERLIN);
    expect(moved).toMatchObject({ start: '2026-12-03T14:00:00+01:00', end: '2026-12-03T15:30:00+01:00' });
    await calendar.delete(created.id);
    expect((await calendar.events(...day, BERLIN)).map((e) => e.id)).not.toContain(created.id);
    await expect(calendar.delete(created.id)).rejects.toThrow('there is no such event in this calendar');
  });

  it('follows Graph’s @odata.nextLink to the events of the next pages', async () => {
    const { tokens } = await connectAlice(microsoft, graphScopes);
    const calendar = await open(tokens);
    // A day of its own, far ahead: the fixture keeps Alice's events for every test.
    const day = new Date(
      Date.UTC(2100 + Math.floor(Math.random() * 50), 0, 1 + Math.floor(Math.random() * 300)),
    );
    const add = (title: string, minute: number) =>
      calendar.create(
        {
          title,
          start: new Date(day.getTime() + minute * 60_000),
          end: new Date(day.getTime() + (minute + 5) * 60_000),
        },
        'UTC',
      );
    for (let i = 0; i < 105; i++) await add(`Slot ${i}`, i * 10);
    const found = await calendar.events(day, new Date(day.getTime() + 24 * 3600_000), 'UTC');
    expect(found).toHaveLength(105);
    expect(found.at(-1)?.title).toBe('Slot 104');
  });

  it('refreshes the token for Graph’s scopes when Graph refuses an expired one', async () => {
    const { client, tokens, refreshed } = await connectAlice(microsoft, graphScopes);
    const calendar = await open(tokens);
    await expireAtFixture(client.clientId);
    await expect(calendar.events(new Date(), new Date(Date.now() + 3600_000), BERLIN)).resolves.toEqual([]);
    expect(refreshed).toHaveLength(1);
  });

  it('is refused without the calendar scope, in Graph’s words; needs_reauth once the grant is revoked', async () => {
    const mailOnly = await connectAlice({
      ...microsoft,
      scopes: ['openid', 'email', 'offline_access', 'https://outlook.office.com/IMAP.AccessAsUser.All'],
    });
    const refused = await graphProvider
      .test(await open(mailOnly.tokens), signal)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConnectionTestError);
    expect((refused as Error).message).toBe(
      'Microsoft Graph refused: Access is denied. Check credentials and try again.',
    );
    const { client, tokens } = await connectAlice(microsoft, graphScopes);
    await revokeAtFixture(client.clientId);
    await expect(graphProvider.test(await open(tokens), signal)).rejects.toBeInstanceOf(NeedsReauthError);
  });
});

describe('a Graph answer that points elsewhere', () => {
  const servers: Server[] = [];
  const listen = async (handler: Parameters<typeof createServer>[1]) => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  afterAll(() => servers.forEach((server) => server.close()));

  it('never sends the access token to an @odata.nextLink on another host', async () => {
    const seen: Array<string | undefined> = [];
    const elsewhere = await listen((req, res) => {
      seen.push(req.headers.authorization);
      res.end('{"value":[]}');
    });
    const graph = await listen((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ value: [], '@odata.nextLink': `${elsewhere}/v1.0/me/calendarView?$skip=10` }));
    });
    const calendar = await graphProvider.open(
      { settings: graphProvider.settings.parse({ base_url: `${graph}/v1.0` }), secrets: {} },
      envWith({ accessToken: async () => 'the-connection-token' }),
    );
    await expect(calendar.events(new Date(), new Date(Date.now() + 3600_000), BERLIN)).rejects.toThrow(
      'Graph pointed elsewhere than its own API',
    );
    expect(seen).toEqual([]);
  });
});

describe('OAuth calendars on the hosted API', () => {
  it('refuses Graph or a bearer CalDAV server on the service’s own network, before any token is asked for', async () => {
    let asked = 0;
    const hosted = {
      ...envWith({ accessToken: async () => String(++asked) }),
      deployment: 'hosted' as const,
    };
    await expect(
      graphProvider.open(
        { settings: graphProvider.settings.parse({ base_url: GRAPH }), secrets: {} },
        hosted,
      ),
    ).rejects.toBeInstanceOf(ConnectionTestError);
    await expect(
      caldavOAuthProvider.open({ settings: { url: `${BEARER_CALDAV}/alice/` }, secrets: {} }, hosted),
    ).rejects.toBeInstanceOf(ConnectionTestError);
    expect(asked).toBe(0);
  });
});
