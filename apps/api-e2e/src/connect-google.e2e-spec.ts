/**
 * The browser journey of issue 22 on a built self-hosted server, in Chromium, against the OAuth provider fixture
 * standing in for Google (`tools/workspace/services/oauth-fixture.sh`: oidc-provider on 9400, Dovecot with its
 * oauth2 passdb on 10144, bearer CalDAV in front of Radicale on 5233): "Connect Google" on /profile, Allow on the
 * provider's page, "what's on my calendar tomorrow?" answered; the access token expired at the provider and
 * refreshed; the app's access removed on the provider's account page, the connection `needs_reauth` with the
 * words and the link, and Reconnect on /profile making it work again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { BUILT, startServer, type ServerProcess } from './support/processes';

const FIXTURE = process.env.ASSISTANT_TEST_OAUTH_URL ?? 'http://127.0.0.1:9400';
const BEARER_CALDAV = process.env.ASSISTANT_TEST_BEARER_CALDAV_URL ?? 'http://127.0.0.1:5233';
const RADICALE = process.env.ASSISTANT_TEST_CALDAV_URL ?? 'http://127.0.0.1:5232';
const CHROMIUM = process.env.ASSISTANT_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const run = randomBytes(4).toString('hex');

/** A free port on loopback: the callback must be registered at the provider before the server starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const fixturePost = (path: string, body: object) =>
  fetch(`${FIXTURE}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Alice's calendar with one event tomorrow at 09:00 UTC, made with her password on Radicale. */
async function seededCalendar(): Promise<string> {
  const path = `/alice/journey-${run}/`;
  const auth = `Basic ${Buffer.from('alice:secret').toString('base64')}`;
  const made = await fetch(`${RADICALE}${path}`, { method: 'MKCALENDAR', headers: { authorization: auth } });
  expect(made.status).toBe(201);
  const tomorrow = new Date(Date.now() + 24 * 3600_000).toISOString().slice(0, 10).replaceAll('-', '');
  await fetch(`${RADICALE}${path}dentist.ics`, {
    method: 'PUT',
    headers: { authorization: auth, 'content-type': 'text/calendar' },
    body: [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      'BEGIN:VEVENT',
      `UID:journey-${run}`,
      'DTSTAMP:20261101T000000Z',
      `SUMMARY:Dentist ${run}`,
      `DTSTART:${tomorrow}T090000Z`,
      `DTEND:${tomorrow}T100000Z`,
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n'),
  });
  return path;
}

let dataDir: string;
let server: ServerProcess;
let client: { client_id: string; client_secret: string };
let context: BrowserContext;
let page: Page;
let ownerToken: string;

beforeAll(async () => {
  const port = await freePort();
  const registered = await fixturePost('/reg', {
    client_name: `Assistant journey ${run}`,
    redirect_uris: [`http://127.0.0.1:${port}/profile/connections/oauth/callback`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  }).catch((error: Error) => {
    throw new Error(
      `no OAuth fixture at ${FIXTURE} (${error.message}); start tools/workspace/services/oauth-fixture.sh`,
    );
  });
  expect(registered.status).toBe(201);
  client = (await registered.json()) as typeof client;
  const calendar = await seededCalendar();
  dataDir = mkdtempSync(join(tmpdir(), 'assistant-connect-google-'));
  server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', String(port)], {
    ASSISTANT_BUILTIN_PACING_MS: '0',
    ASSISTANT_GOOGLE_CLIENT_ID: client.client_id,
    ASSISTANT_GOOGLE_CLIENT_SECRET: client.client_secret,
    ASSISTANT_OAUTH_TEST_OVERRIDES: JSON.stringify({
      google: {
        endpoints: {
          authorizationEndpoint: `${FIXTURE}/auth`,
          tokenEndpoint: `${FIXTURE}/token`,
          revocationEndpoint: `${FIXTURE}/token/revocation`,
        },
        protocolSettings: {
          'email/imap-oauth': {
            imap_host: '127.0.0.1',
            imap_port: 10144,
            imap_tls: false,
            smtp_host: '127.0.0.1',
            smtp_port: 10587,
            smtp_tls: false,
          },
          'calendar/caldav-oauth': { url: `${BEARER_CALDAV}${calendar}` },
        },
      },
    }),
  });
  ownerToken = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')).token;
  const profile = mkdtempSync(join(tmpdir(), 'assistant-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(/Sign in \(once, within 15 minutes\): (\S+)/.exec(server.output())?.[1] as string);
  expect(new URL(page.url()).pathname).toBe('/profile');
});
afterAll(async () => {
  await context?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** What the assistant answers: the text deltas of the query's stream, joined. */
async function ask(text: string): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/queries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data: {"type":"output_text.delta"'))
    .map((line) => (JSON.parse(line.slice(6)) as { delta: string }).delta)
    .join('');
}

/** Allow on the provider's consent page, then back on /profile. */
async function allowAtProvider(): Promise<void> {
  await page.waitForURL(`${FIXTURE}/**`);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL(`${server.url}/profile#connections`);
}

describe('Connect Google in a browser', () => {
  it("connects the account on /profile, and the calendar answers what's on tomorrow", async () => {
    await page.getByRole('button', { name: 'Connect Google' }).click();
    await allowAtProvider();
    const section = await page.textContent('main');
    expect(section).toContain('imap-oauth');
    expect(section).toContain('caldav-oauth');
    expect(await ask("what's on my calendar tomorrow?")).toContain(`Dentist ${run}`);
  });

  it('refreshes the access token the provider expired', async () => {
    expect((await fixturePost('/fixture/expire', { client_id: client.client_id })).ok).toBe(true);
    expect(await ask("what's on my calendar tomorrow?")).toContain(`Dentist ${run}`);
  });

  it('says the connection needs reconnecting once the access is removed at the provider, and Reconnect mends it', async () => {
    await page.goto(`${FIXTURE}/fixture/account`);
    await page.getByRole('button', { name: `Remove access of ${client.client_id}` }).click();
    await fixturePost('/fixture/expire', { client_id: client.client_id });
    const answer = await ask("what's on my calendar tomorrow?");
    expect(answer).toContain('needs to be connected again');
    expect(answer).toContain(`${server.url}/profile#connections`);

    await page.goto(`${server.url}/profile`);
    expect(await page.textContent('main')).toContain('Needs reconnecting');
    await page.getByRole('button', { name: 'Reconnect Google' }).first().click();
    await allowAtProvider();
    expect(await page.textContent('main')).not.toContain('Needs reconnecting');
    expect(await ask("what's on my calendar tomorrow?")).toContain(`Dentist ${run}`);
  });
});
