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
import type { Page } from 'playwright-core';
import {
  expireAtFixture,
  OAUTH_FIXTURE_ENDPOINTS,
  OAUTH_FIXTURE_MAIL_SETTINGS,
  OAUTH_FIXTURE_URL as FIXTURE,
  registerFixtureClient,
  seedAliceCalendar,
  type FixtureClient,
} from '@assistant/test-services';
import { openBrowser, type OpenBrowser } from './support/chromium';
import { BUILT, startServer, type ServerProcess } from './support/processes';

const BEARER_CALDAV = process.env.ASSISTANT_TEST_BEARER_CALDAV_URL ?? 'http://127.0.0.1:5233';
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

let dataDir: string;
let server: ServerProcess;
let client: FixtureClient;
let browser: OpenBrowser;
let page: Page;
let ownerToken: string;

beforeAll(async () => {
  const port = await freePort();
  client = await registerFixtureClient({
    redirectUri: `http://127.0.0.1:${port}/profile/connections/oauth/callback`,
    clientName: `Assistant journey ${run}`,
  });
  const calendar = (await seedAliceCalendar({ name: `journey-${run}`, summary: `Dentist ${run}` })).path;
  dataDir = mkdtempSync(join(tmpdir(), 'assistant-connect-google-'));
  server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', String(port)], {
    ASSISTANT_BUILTIN_PACING_MS: '0',
    ASSISTANT_GOOGLE_CLIENT_ID: client.clientId,
    ASSISTANT_GOOGLE_CLIENT_SECRET: client.clientSecret,
    ASSISTANT_OAUTH_TEST_OVERRIDES: JSON.stringify({
      google: {
        endpoints: OAUTH_FIXTURE_ENDPOINTS,
        protocolSettings: {
          'email/imap-oauth': OAUTH_FIXTURE_MAIL_SETTINGS,
          'calendar/caldav-oauth': { url: `${BEARER_CALDAV}${calendar}` },
        },
      },
    }),
  });
  ownerToken = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')).token;
  browser = await openBrowser();
  page = browser.page;
  await page.goto(/Sign in \(once, within 15 minutes\): (\S+)/.exec(server.output())?.[1] as string);
  expect(new URL(page.url()).pathname).toBe('/profile');
});
afterAll(async () => {
  await browser?.close();
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
    expect((await expireAtFixture(client.clientId)).ok).toBe(true);
    expect(await ask("what's on my calendar tomorrow?")).toContain(`Dentist ${run}`);
  });

  it('says the connection needs reconnecting once the access is removed at the provider, and Reconnect mends it', async () => {
    await page.goto(`${FIXTURE}/fixture/account`);
    await page.getByRole('button', { name: `Remove access of ${client.clientId}` }).click();
    await expireAtFixture(client.clientId);
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
