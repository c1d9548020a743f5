/**
 * Connections by form, in a real browser (Debian's Chromium, driven by playwright-core) against the built
 * self-hosted server and the test machine's real Dovecot and OpenSMTPD (127.0.0.1:10143 and 10025, alice/secret:
 * `tools/workspace/services/mail.sh`) and Radicale (127.0.0.1:5232: `calendar.sh`): the owner signs in with the
 * link `serve` prints, adds a mailbox — Test shows Dovecot's own reason for a wrong password — and a calendar
 * through the forms of /profile, and the built-in model then answers "check my inbox" from that mailbox.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Connection } from '@assistant/contracts';
import { ApiClient } from './support/http';
import { BUILT, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';
import { readStream } from './support/sse';

const CHROMIUM = process.env.ASSISTANT_CHROMIUM ?? '/usr/bin/chromium';
const CALDAV = process.env.ASSISTANT_TEST_CALDAV_URL ?? 'http://127.0.0.1:5232';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
/** Where the pages' screenshots are written, for a person to look at. */
const ARTIFACTS = join(WORKSPACE_ROOT, 'dist', 'test-artifacts', 'connections-forms');

async function openBrowser(): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'assistant-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
    ],
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

/**
 * Runs axe-core in the page and fails on any serious or critical violation, naming each (injected by the test,
 * so the page's CSP, which allows no inline script, does not apply to it).
 */
async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(AXE);
  // A string, evaluated in the page: this file is compiled without the DOM's types.
  const violations = (await page.evaluate(`axe.run().then((result) => result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.impact + ' ' + v.id + ': ' + JSON.stringify(v.nodes.map((n) => n.target))))`)) as string[];
  expect(violations).toEqual([]);
}

/** Delivers a mail to alice (or bob) through the test OpenSMTPD, speaking SMTP itself. */
function deliverTo(user: 'alice' | 'bob', subject: string, body: string): Promise<void> {
  const from = user === 'alice' ? 'bob' : 'alice';
  const lines = [
    'EHLO forms.e2e',
    `MAIL FROM:<${from}@example.test>`,
    `RCPT TO:<${user}@example.test>`,
    'DATA',
    `From: ${from}@example.test\r\nTo: ${user}@example.test\r\nSubject: ${subject}\r\n\r\n${body}\r\n.`,
    'QUIT',
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(10025, '127.0.0.1');
    let buffer = '';
    let step = -1;
    socket.setEncoding('utf8');
    socket.on('error', (error) =>
      reject(new Error(`no SMTP server on 127.0.0.1:10025 (${error.message}); start it with mail.sh`)),
    );
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      // A reply is complete at a line whose code is followed by a space (not `250-`).
      if (!/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(buffer)) return;
      const code = Number(/(\d{3}) [^\r\n]*\r\n$/.exec(buffer)?.[1]);
      buffer = '';
      if (code >= 400) return reject(new Error(`SMTP refused step ${step}: ${code}`));
      step++;
      if (step < lines.length) socket.write(`${lines[step]}\r\n`);
    });
    socket.on('close', () => (step >= lines.length - 1 ? resolve() : reject(new Error('SMTP closed early'))));
  });
}

describe('connections added through the forms of /profile, in a browser', () => {
  const tag = randomBytes(4).toString('hex');
  const subject = `Forms journey ${tag}`;
  let dataDir: string;
  let server: ServerProcess;
  let owner: ApiClient;
  let token: string;
  let browser: Awaited<ReturnType<typeof openBrowser>>;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-forms-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
    token = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')).token;
    owner = new ApiClient(server.url, token);
    await deliverTo('alice', subject, 'The journey through the forms reached the inbox.');
    browser = await openBrowser();
    await browser.page.goto(
      /Sign in \(once, within 15 minutes\): (\S+)/.exec(server.output())?.[1] as string,
    );
    expect(new URL(browser.page.url()).pathname).toBe('/profile');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("adds a mailbox by form: Test gives Dovecot's reason for a wrong password, Save keeps it as the default", async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'A mailbox over IMAP and SMTP' }).click();
    await page.waitForURL('**/profile/connections/new?family=email&provider=imap');
    await page.getByLabel('Name', { exact: true }).fill('Personal');
    await page.getByLabel('IMAP host', { exact: true }).fill('127.0.0.1');
    await page.getByLabel('IMAP port', { exact: true }).fill('10143');
    await page.getByLabel('IMAP TLS', { exact: true }).uncheck();
    await page.getByLabel('SMTP host', { exact: true }).fill('127.0.0.1');
    await page.getByLabel('SMTP port', { exact: true }).fill('10025');
    await page.getByLabel('SMTP TLS', { exact: true }).uncheck();
    await page.getByLabel('Username', { exact: true }).fill('alice');
    await page.getByLabel('From address', { exact: true }).fill('alice@example.test');
    await page.getByLabel('Password', { exact: true }).fill('not-her-password');
    await page.getByRole('button', { name: 'Test' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('IMAP login to 127.0.0.1 failed: Authentication failed.');
    await page.screenshot({ path: join(ARTIFACTS, 'imap-test-refused.png'), fullPage: true });
    await expectAccessible(page);
    // What was typed is still there — but the password, which never comes back.
    expect(await page.getByLabel('Username', { exact: true }).inputValue()).toBe('alice');
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain('not-her-password');

    await page.getByLabel('Password', { exact: true }).fill('secret');
    await page.getByRole('button', { name: 'Test' }).click();
    await page.getByRole('status').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('The connection works');
    await page.getByLabel('Password', { exact: true }).fill('secret');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/profile#connections');
    const row = page.getByRole('row', { name: /Personal/ });
    expect(await row.textContent()).toMatch(/Personal\s*email\s*imap\s*Working\s*Default/);
    await page.screenshot({ path: join(ARTIFACTS, 'profile-connections.png'), fullPage: true });
    await expectAccessible(page);

    // The edit form, on a phone-sized screen too: the settings as stored, the password never.
    await page.getByRole('link', { name: 'Edit Personal' }).click();
    await page.getByRole('heading', { name: 'Edit Personal' }).waitFor();
    expect(await page.getByLabel('IMAP port', { exact: true }).inputValue()).toBe('10143');
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain('"secret"');
    await expectAccessible(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(ARTIFACTS, 'imap-edit-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('link', { name: 'Back to your profile' }).click();
    await page.waitForURL('**/profile#connections');
  });

  it('adds a calendar by form', async () => {
    const { page } = browser;
    const calendar = `${CALDAV}/alice/forms-${tag}/`;
    const made = await fetch(calendar, {
      method: 'MKCALENDAR',
      headers: { authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` },
    }).catch((error: Error) => {
      throw new Error(`no CalDAV server at ${CALDAV} (${error.message}); start it with calendar.sh`);
    });
    expect(made.status).toBe(201);
    await page.getByRole('link', { name: /A CalDAV calendar/ }).click();
    await page.getByLabel('Name', { exact: true }).fill('Household');
    await page.getByLabel('URL', { exact: true }).fill(calendar);
    await page.getByLabel('Username', { exact: true }).fill('alice');
    await page.getByLabel('Password', { exact: true }).fill('secret');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL('**/profile#connections');
    expect(await page.getByRole('row', { name: /Household/ }).textContent()).toMatch(
      /Household\s*calendar\s*caldav\s*Working/,
    );

    const { body } = await owner.get<{ data: Connection[] }>('/connections');
    expect(body.data.filter((c) => !c.built_in).map((c) => [c.family, c.name, c.default, c.status])).toEqual([
      ['email', 'Personal', true, 'ok'],
      ['calendar', 'Household', true, 'ok'],
    ]);
    expect(JSON.stringify(body)).not.toContain('secret"');
  });

  it('answers "check my inbox" from the mailbox added by form', async () => {
    const stream = await readStream(`${server.url}/api/v1/queries`, {
      token,
      body: { text: 'check my inbox' },
    });
    expect(stream.status).toBe(200);
    const events = stream.events.map((e) => e.event);
    expect(
      events.filter((e) => e.type === 'tool_call.started').map((e) => (e as { tool: string }).tool),
    ).toEqual([expect.stringMatching(/^email_/)]);
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: expect.stringContaining(subject) });
  });

  it('answers "check my work mail" from the connection named Work, and "check my inbox" still from the default', async () => {
    const workSubject = `Work journey ${tag}`;
    await deliverTo('bob', workSubject, 'Only the work mailbox has this one.');
    const added = await owner.post<Connection>('/connections', {
      family: 'email',
      provider: 'imap',
      name: 'Work',
      settings: {
        imap_host: '127.0.0.1',
        imap_port: 10143,
        imap_tls: false,
        smtp_host: '127.0.0.1',
        smtp_port: 10025,
        smtp_tls: false,
        username: 'bob',
        from_address: 'bob@example.test',
      },
      secrets: { password: 'secret' },
    });
    expect(added.body).toMatchObject({ name: 'Work', default: false });
    const ask = async (text: string) => {
      const stream = await readStream(`${server.url}/api/v1/queries`, { token, body: { text } });
      return stream.events.map((e) => e.event).at(-1) as { type: string; text?: string };
    };
    const work = await ask('check my work mail');
    expect(work).toMatchObject({ type: 'query.completed', text: expect.stringContaining(workSubject) });
    expect(work.text).not.toContain(subject);
    const personal = await ask('check my inbox');
    expect(personal.text).toContain(subject);
    expect(personal.text).not.toContain(workSubject);
  });
});
