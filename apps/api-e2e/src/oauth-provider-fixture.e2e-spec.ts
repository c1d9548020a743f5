/**
 * The OAuth provider fixture (tools/workspace/services/oauth-fixture.sh) in a browser, as the "Connect Google"
 * journey will use it: Alice consents by clicking Allow on its plain form and the browser comes back to the
 * client's redirect URI with a code; on the fixture's account page she removes the application's access, and its
 * refresh token stops working. No server of ours is started: this checks the stand-in itself.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';

const FIXTURE = process.env.ASSISTANT_TEST_OAUTH_URL ?? 'http://127.0.0.1:9400';
const CHROMIUM = process.env.ASSISTANT_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const REDIRECT_URI = 'http://127.0.0.1/fixture-callback';

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
});

async function registerClient(name: string) {
  const reply = await fetch(`${FIXTURE}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    }),
  });
  expect(reply.status).toBe(201);
  return (await reply.json()) as { client_id: string; client_secret: string };
}

const refresh = (client: { client_id: string; client_secret: string }, refreshToken: string) =>
  fetch(`${FIXTURE}/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, ...client }),
  });

describe('the OAuth provider fixture in a browser', () => {
  it('lets Alice allow an application by clicking, and remove its access on her account page', async () => {
    const client = await registerClient(`Assistant e2e ${randomBytes(3).toString('hex')}`);
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(16).toString('base64url');
    const authorize = new URL(`${FIXTURE}/auth`);
    for (const [name, value] of Object.entries({
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid email https://www.googleapis.com/auth/calendar',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(name, value);

    const page = await browser.newPage();
    // The client's callback: nothing listens there; the browser arriving is what counts.
    await page.route(`${REDIRECT_URI}**`, (route) => route.fulfill({ body: 'back at the client' }));
    await page.goto(authorize.href);
    await expect(page.textContent('body')).resolves.toContain('alice@example.test');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT_URI}**`);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe(state);
    const redeemed = await fetch(`${FIXTURE}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
        ...client,
      }),
    });
    const tokens = (await redeemed.json()) as { refresh_token: string };
    expect((await refresh(client, tokens.refresh_token)).status).toBe(200);

    await page.goto(`${FIXTURE}/fixture/account`);
    await page.getByRole('button', { name: `Remove access of ${client.client_id}` }).click();
    await page.waitForURL(`${FIXTURE}/fixture/account`);
    await expect(
      page.getByRole('button', { name: `Remove access of ${client.client_id}` }).count(),
    ).resolves.toBe(0);
    const refused = await refresh(client, tokens.refresh_token);
    expect(refused.status).toBe(400);
    await expect(refused.json()).resolves.toMatchObject({ error: 'invalid_grant' });
    await page.close();
  });
});
