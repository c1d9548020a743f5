/**
 * The sign-in and account pages in a real browser (Debian's Chromium, driven by playwright-core) against the
 * built servers: on the hosted API, sign up, sign out, sign in, and a personal token made on /profile used on the
 * API and revoked; on a self-hosted server, the one-time sign-in link `assistant serve` prints.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Account } from '@assistant/contracts';
import { ApiClient } from './support/http';
import { BUILT, run, startServer, type ServerProcess } from './support/processes';
import { startHosted, type Target } from './support/targets';

/** Debian's package; CI installs it (.ci/services/browser.packages). */
const CHROMIUM = process.env.ASSISTANT_CHROMIUM ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A fresh browser profile each time: no cookie survives from one browser to the next. */
async function openBrowser(): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'assistant-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const pathOf = (page: Page) => new URL(page.url()).pathname;

describe('the pages on the hosted API, in a browser', () => {
  let target: Target;
  let browser: Awaited<ReturnType<typeof openBrowser>>;

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
    rmSync(dataDir, { recursive: true, force: true });
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
