/**
 * Every account of a self-hosted server can sign in, in a real browser (Debian's Chromium through playwright-core)
 * against the built `assistant serve`: a household member added with `accounts add` gets a one-time link from
 * `accounts login-link`; and an application's authorization that needed a sign-in comes back to its consent page
 * once the owner opens a fresh `serve --login-link` in that browser, instead of landing on /profile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBrowser } from './support/chromium';
import { BUILT, run, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';

const OAUTH_CLIENT = join(WORKSPACE_ROOT, 'apps/api-e2e/src/support/oauth-client.mjs');
const CALLBACK = 'http://127.0.0.1:9/callback';

const linkIn = (output: string) => /\(once, within 15 minutes\): (\S+)/.exec(output)?.[1] as string;

describe('sign-in links of a self-hosted server, in a browser', () => {
  let dataDir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-sign-in-links-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
  });
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = (args: string[]) => run(BUILT.cli, [...args, '--data-dir', dataDir], {}, undefined, 30_000);

  it('accounts login-link signs a household member in to their own profile', async () => {
    expect((await cli(['accounts', 'add', '--email', 'sam@example.test', '--name', 'Sam'])).code).toBe(0);
    const made = await cli(['accounts', 'login-link', '--email', 'sam@example.test']);
    expect(made.code).toBe(0);
    const link = linkIn(made.stdout);
    expect(link).toMatch(new RegExp(`^${server.url}/signin/link\\?token=`));

    const browser = await openBrowser();
    try {
      await browser.page.goto(link);
      expect(new URL(browser.page.url()).pathname).toBe('/profile');
      expect(await browser.page.textContent('main')).toContain('sam@example.test');
      // Not the owner: no links for others.
      expect(await browser.page.textContent('main')).not.toContain('Make a sign-in link');
    } finally {
      await browser.close();
    }
    const unknown = await cli(['accounts', 'login-link', '--email', 'kim@example.test']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no account with the email kim@example.test');
  });

  it('an authorization that sent the browser to sign in resumes at its consent page after the sign-in link', async () => {
    const application = async <T>(step: string, input: object): Promise<T> =>
      JSON.parse((await run(OAUTH_CLIENT, [step, server.url, JSON.stringify(input)], {})).stdout) as T;
    const { client_id } = await application<{ client_id: string }>('register', {
      redirect_uri: CALLBACK,
      client_name: 'Bakery bot',
    });
    const started = await application<{ url: string }>('start', {
      client_id,
      redirect_uri: CALLBACK,
      scope: 'read:memories',
    });
    const browser = await openBrowser();
    try {
      await browser.page.goto(started.url);
      expect(new URL(browser.page.url()).pathname).toBe('/signin');
      expect(await browser.page.textContent('main')).toContain('come back to where you were');

      const fresh = await run(
        BUILT.cli,
        ['serve', '--data-dir', dataDir, '--login-link'],
        {},
        undefined,
        30_000,
      );
      expect(fresh.code).toBe(0);
      await browser.page.goto(linkIn(fresh.stdout));
      await expect(
        browser.page.getByRole('heading', { name: 'Allow Bakery bot to use your assistant?' }).isVisible(),
      ).resolves.toBe(true);
    } finally {
      await browser.close();
    }
  });
});
