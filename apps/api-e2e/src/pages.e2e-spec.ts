/**
 * The sign-in and account pages in a real browser (Debian's Chromium, driven by playwright-core) against the
 * built servers: on the hosted API, sign up (then sign in: sign-up does not), sign out, sign in, and a personal
 * token made on /profile used on the API and revoked; on a self-hosted server, the one-time sign-in link
 * `assistant serve` prints.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Account } from '@assistant/contracts';
import { openBrowser, type OpenBrowser } from './support/chromium';
import { ApiClient } from './support/http';
import { BUILT, run, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';
import { startHosted, type Target } from './support/targets';

const pathOf = (page: Page) => new URL(page.url()).pathname;

describe('the pages on the hosted API, in a browser', () => {
  let target: Target;
  let browser: OpenBrowser;

  beforeAll(async () => {
    target = await startHosted();
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await target?.stop();
  });

  it('signs up, signs out, signs in, and makes a personal token that works on the API until it is revoked', async () => {
    const { page } = browser;
    const email = 'ada@example.test';
    const password = 'a long enough password';

    await page.goto(`${target.url}/signup`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    // Sign-up answers with the sign-in form, the email filled in, whether or not the email had an account.
    await page.getByRole('status').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('Sign in to continue.');
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/profile');
    await expect(page.getByRole('heading', { name: 'Your profile' }).isVisible()).resolves.toBe(true);
    expect(await page.textContent('main')).toContain(email);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.goto(`${target.url}/profile`);
    expect(pathOf(page)).toBe('/signin');

    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('The email or password is wrong.');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/profile');

    await page.getByLabel('Name', { exact: true }).fill('Browser test');
    await page.getByLabel('See your account').check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect(page.getByRole('heading', { name: 'Your new token' }).isVisible()).resolves.toBe(true);
    const secret = await page.getByLabel('Token', { exact: true }).inputValue();
    expect(secret).toMatch(/^asp_/);

    const api = new ApiClient(target.url, secret);
    const me = await api.get<Account & { token: { scopes: string[] } }>('/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, deployment: 'hosted', token: { scopes: ['read:account'] } });

    await page.goto(`${target.url}/profile`);
    expect(await page.textContent('main')).not.toContain(secret);
    await page.getByRole('button', { name: 'Revoke Browser test' }).click();
    await page.waitForURL('**/profile#tokens');
    expect(await page.textContent('main')).not.toContain('Browser test');
    expect((await api.get('/me')).status).toBe(401);
  });
});

describe('the one-time sign-in link of a self-hosted server, in a browser', () => {
  let dataDir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-pages-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
  });
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const linkIn = (output: string) => /Sign in \(once, within 15 minutes\): (\S+)/.exec(output)?.[1];

  it('serve prints the link after the address; it signs the owner in once, and is refused the second time', async () => {
    const link = linkIn(server.output()) as string;
    expect(link).toMatch(new RegExp(`^${server.url}/signin/link\\?token=[A-Za-z0-9_-]{43}$`));
    expect(server.output().indexOf(link)).toBeGreaterThan(server.output().indexOf(server.url));

    const first = await openBrowser();
    try {
      await first.page.goto(link);
      expect(pathOf(first.page)).toBe('/profile');
      expect(await first.page.textContent('main')).toContain('Self-hosted server');
    } finally {
      await first.close();
    }

    const second = await openBrowser();
    try {
      const res = await second.page.goto(link);
      expect(res?.status()).toBe(400);
      expect(await second.page.textContent('main')).toContain('This sign-in link does not work');
      await second.page.goto(`${server.url}/profile`);
      expect(pathOf(second.page)).toBe('/signin');
    } finally {
      await second.close();
    }
  });

  it('serve --login-link prints a fresh link from the running server and exits', async () => {
    const result = await run(
      BUILT.cli,
      ['serve', '--data-dir', dataDir, '--login-link'],
      {},
      undefined,
      30_000,
    );
    expect(result.code).toBe(0);
    const link = linkIn(result.stdout) as string;
    expect(link).toMatch(new RegExp(`^${server.url}/signin/link\\?token=`));

    const browser = await openBrowser();
    try {
      await browser.page.goto(link);
      expect(pathOf(browser.page)).toBe('/profile');
    } finally {
      await browser.close();
    }
  });
});

describe('third-party applications and devices on /profile of a self-hosted server, in a browser', () => {
  const OAUTH_CLIENT = join(WORKSPACE_ROOT, 'apps/api-e2e/src/support/oauth-client.mjs');
  const CALLBACK = 'http://127.0.0.1:9/callback';
  let dataDir: string;
  let server: ServerProcess;
  let browser: OpenBrowser;
  let owner: ApiClient;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-pages-apps-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
    owner = new ApiClient(
      server.url,
      JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')).token,
    );
    browser = await openBrowser();
    await browser.page.goto(
      /Sign in \(once, within 15 minutes\): (\S+)/.exec(server.output())?.[1] as string,
    );
    expect(pathOf(browser.page)).toBe('/profile');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** One step of the application's side, played by openid-client in its own process. */
  const application = async <T>(step: string, input: object): Promise<T> =>
    JSON.parse((await run(OAUTH_CLIENT, [step, server.url, JSON.stringify(input)], {})).stdout) as T;

  it('allows an application on the consent page, then revokes it from /profile: its token gets 401', async () => {
    const { page } = browser;
    const { client_id } = await application<{ client_id: string }>('register', {
      redirect_uri: CALLBACK,
      client_name: 'Bakery bot',
    });
    const started = await application<{ url: string; verifier: string; state: string }>('start', {
      client_id,
      redirect_uri: CALLBACK,
      scope: 'read:memories',
    });
    // The application's callback: the browser arrives there with the code.
    let callback = '';
    await page.route(`${CALLBACK}**`, (route) => {
      callback = route.request().url();
      return route.fulfill({ contentType: 'text/plain', body: 'back at the application' });
    });
    await page.goto(started.url);
    await expect(
      page.getByRole('heading', { name: 'Allow Bakery bot to use your assistant?' }).isVisible(),
    ).resolves.toBe(true);
    expect(await page.textContent('main')).toContain('Read and search your memories');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${CALLBACK}**`);
    const tokens = await application<{ access_token: string }>('exchange', {
      client_id,
      callback,
      ...started,
    });
    const app = new ApiClient(server.url, tokens.access_token);
    expect((await app.get('/memories')).status).toBe(200);

    await page.goto(`${server.url}/profile`);
    expect(await page.textContent('main')).toContain('Bakery bot');
    await page.getByRole('button', { name: 'Revoke Bakery bot' }).click();
    await page.waitForURL('**/profile#integrations');
    expect(await page.textContent('main')).not.toContain('Bakery bot');
    expect((await app.get('/memories')).status).toBe(401);
  });

  it('revokes a paired phone from /profile: its device token gets 401', async () => {
    const { page } = browser;
    const pairing = await owner.post<{ code: string }>('/pairing', {});
    const claimed = await new ApiClient(server.url, null).post<{ token: string }>('/pairing/claim', {
      code: pairing.body.code,
      device_name: 'Ada’s phone',
    });
    const phone = new ApiClient(server.url, claimed.body.token);
    expect((await phone.get('/me')).status).toBe(200);

    await page.goto(`${server.url}/profile`);
    await page.getByRole('button', { name: 'Revoke Ada’s phone' }).click();
    await page.waitForURL('**/profile#devices');
    expect((await phone.get('/me')).status).toBe(401);
  });
});
