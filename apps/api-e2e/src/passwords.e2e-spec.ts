/**
 * The hosted service's passwords in a real browser (Debian's Chromium through playwright-core) against the built
 * hosted API, with its own mail server set (`ASSISTANT_SMTP_URL`, `ASSISTANT_MAIL_FROM`): a person who forgot
 * their password gets a link by mail (read back over IMAP from the machine's Dovecot) and chooses a new one, and
 * changes it on /profile. (An account the operator made gets its first one the same way: password.in-process.spec.)
 */
import type { Page } from 'playwright-core';
import { openBrowser, type OpenBrowser } from './support/chromium';
import { MAIL_SERVER, waitForMailMatch } from './support/mailbox';
import { startHosted, type Target } from './support/targets';

describe('passwords on the hosted API, in a browser', () => {
  let target: Target;
  let browser: OpenBrowser;
  /** The links of this server's mails start with its address (its port is its own). */
  let linkPattern: RegExp;

  beforeAll(async () => {
    target = await startHosted({
      ASSISTANT_SMTP_URL: MAIL_SERVER.smtpUrl,
      ASSISTANT_MAIL_FROM: 'assistant@example.test',
    });
    linkPattern = new RegExp(`${target.url.replace(/[.]/g, '\\.')}/password/reset\\?token=[A-Za-z0-9_-]+`);
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await target?.stop();
  });

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${target.url}/signin`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('forgot password: a link by mail sets a new one, which signs in where the old one does not; then it is changed on /profile', async () => {
    const { page } = browser;
    const email = 'alice@example.test';
    await page.goto(`${target.url}/signup`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('the first password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').waitFor();

    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    expect(await page.getByRole('status').textContent()).toContain('If an account has this email');

    const link = await waitForMailMatch('alice', target.url, linkPattern);
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('the second password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.waitForURL('**/profile');
    expect(await page.textContent('main')).toContain(email);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await signIn(page, email, 'the first password');
    expect(await page.getByRole('alert').textContent()).toContain('The email or password is wrong.');
    await signIn(page, email, 'the second password');
    await page.waitForURL('**/profile');

    await page.getByRole('link', { name: 'Change your password' }).click();
    await page.getByLabel('Current password', { exact: true }).fill('the second password');
    await page.getByLabel('New password', { exact: true }).fill('the third password');
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await page.textContent('main')).toContain('Your password is changed');
  });
});
