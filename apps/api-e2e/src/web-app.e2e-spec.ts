/**
 * The chat web app (/app) in a real browser (Debian's Chromium, driven by playwright-core) against a built
 * self-hosted server with the built-in model: sign in, ask and see the answer stream, approve and deny a change,
 * reload while an answer waits and see it resume, a stream cut under the page resumed with Last-Event-ID, Stop,
 * memories, a mail with markup in it shown as text, a phone paired by its code and signed out by revoking it on
 * /profile; and the same app on the hosted API. Every page is checked with axe-core and photographed at a desktop
 * and a phone size (apps/api-e2e/test-output/web-app/, gitignored).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AssistantClient } from '@assistant/client';
import { credentialsFileIn, readCredentials } from '@assistant/client/local';
import { BUILT, run, startServer, WORKSPACE_ROOT, type ServerProcess } from './support/processes';
import { startHosted, type Target } from './support/targets';
import { waitForMailMatch } from './support/mailbox';

const CHROMIUM = process.env.ASSISTANT_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const ARTIFACTS = join(WORKSPACE_ROOT, 'apps/api-e2e/test-output/web-app');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** The mail server of the machine (tools/workspace/services/mail.sh). */
const SMTP_PORT = 10025;

/**
 * Runs axe-core in the page and fails on any serious or critical violation, naming each. axe is injected by the
 * test (evaluate), so the page's own CSP, which allows no inline script, does not apply to it.
 */
async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(AXE);
  // A string, evaluated in the page: this file is compiled without the DOM's types.
  const violations = (await page.evaluate(`axe.run().then((result) => result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => v.impact + ' ' + v.id + ': ' + JSON.stringify(v.nodes.map((n) => n.target))))`)) as string[];
  expect(violations).toEqual([]);
}

async function snapshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Hands a mail to the machine's SMTP server as any outside sender would (one SMTP conversation). */
function deliverMail(from: string, to: string, subject: string, body: string): Promise<void> {
  const lines = [
    `EHLO test.example.test`,
    `MAIL FROM:<${from}>`,
    `RCPT TO:<${to}>`,
    'DATA',
    [
      `From: ${from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: <${randomBytes(8).toString('hex')}@example.test>`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      body,
      '.',
    ].join('\r\n'),
    'QUIT',
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(SMTP_PORT, '127.0.0.1');
    let buffer = '';
    let step = 0;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      // A reply is complete at a line whose code is followed by a space.
      const replies = buffer.split('\r\n').filter((line) => /^\d{3} /.test(line));
      if (replies.length === 0) return;
      const last = replies.at(-1) as string;
      buffer = '';
      if (!/^[23]/.test(last)) return reject(new Error(`SMTP refused: ${last}`));
      if (step === lines.length) return;
      socket.write(`${lines[step++]}\r\n`);
      if (step === lines.length) socket.end();
    });
    socket.on('close', () => (step === lines.length ? resolve() : reject(new Error('SMTP closed early'))));
    socket.on('error', reject);
  });
}

/** A TCP relay to `port` on 127.0.0.1 that can cut every connection open through it, as a network that drops. */
async function startRelay(port: number): Promise<{ url: string; dropAll(): void; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const relay = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port: relayPort } = relay.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${relayPort}`,
    dropAll: () => open.forEach((socket) => socket.destroy()),
    close: () =>
      new Promise((resolve) => {
        open.forEach((socket) => socket.destroy());
        relay.close(() => resolve());
      }),
  };
}

describe('the web app, in a browser', () => {
  const tag = randomBytes(4).toString('hex');
  let dataDir: string;
  let server: ServerProcess;
  let owner: AssistantClient;
  let browser: Browser;
  let desktop: BrowserContext;
  let page: Page;

  /** Whether the owner's own folder (<data-dir>/files/<user id>, made at its first write) holds `name`. */
  const inOwnFolder = (name: string) => {
    if (!existsSync(join(dataDir, 'files'))) return undefined;
    const [account] = readdirSync(join(dataDir, 'files'));
    const path = join(dataDir, 'files', account, name);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  };

  /** Asks in the open app and waits for the answer to end (or for a confirmation to be asked). */
  const ask = async (on: Page, text: string) => {
    await on.getByLabel('Your question').fill(text);
    await on.getByRole('button', { name: 'Send', exact: true }).click();
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'assistant-web-app-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
    const credentials = readCredentials(credentialsFileIn(dataDir))!;
    owner = new AssistantClient({ baseUrl: credentials.base_url, token: credentials.token });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    desktop = await browser.newContext({ viewport: DESKTOP });
    page = await desktop.newPage();
    page.on(
      'dialog',
      (dialog) => void dialog.accept(dialog.type() === 'prompt' ? `Groceries ${tag}` : undefined),
    );
    const link = /Sign in \(once, within 15 minutes\): (\S+)/.exec(server.output())?.[1] as string;
    await page.goto(link);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('streams an answer, and keeps discussions that can be renamed and deleted', async () => {
    await page.goto(`${server.url}/app`);
    await expect(page.getByRole('heading', { name: 'New discussion' }).isVisible()).resolves.toBe(true);
    await expectAccessible(page);
    await snapshot(page, 'chat-empty-desktop');

    await ask(page, "remember that my sister's birthday is on March 3");
    await page.getByText('Saved to your memories.').waitFor();
    await ask(page, "when is my sister's birthday?");
    await page.locator('.message.assistant .text', { hasText: 'March 3' }).nth(1).waitFor();
    // The discussion got a title and is listed; the URL names it, so that a reload opens it.
    expect(new URL(page.url()).hash).toMatch(/^#discussion\/dsc_/);
    await expect(page.locator('#discussion-list button').count()).resolves.toBe(1);
    await expectAccessible(page);
    await snapshot(page, 'chat-answered-desktop');

    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByRole('heading', { name: `Groceries ${tag}` }).waitFor();
    await page.locator('#discussion-list button', { hasText: `Groceries ${tag}` }).waitFor();
    const discussions = await owner.listDiscussions();
    expect(discussions.data.map((d) => d.title)).toEqual([`Groceries ${tag}`]);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'New discussion' }).waitFor();
    // The list is drawn again after the heading: wait for its last entry to go.
    await page.locator('#discussion-list button').first().waitFor({ state: 'detached' });
    expect((await owner.listDiscussions()).data).toEqual([]);
  });

  it('runs a change only once approved, and never once denied', async () => {
    await page.goto(`${server.url}/app`);
    await ask(page, `write "milk and eggs" to approved-${tag}.txt`);
    await page.getByRole('button', { name: 'Approve files_write' }).waitFor();
    await expectAccessible(page);
    await snapshot(page, 'chat-confirmation-desktop');
    expect(inOwnFolder(`approved-${tag}.txt`)).toBeUndefined();
    await page.getByRole('button', { name: 'Approve files_write' }).click();
    await page.locator('.tool .state', { hasText: 'done' }).waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':enabled')).waitFor();
    expect(inOwnFolder(`approved-${tag}.txt`)).toMatch(/^milk and eggs\n?$/);

    await ask(page, `write "nothing" to denied-${tag}.txt`);
    await page.getByRole('button', { name: 'Deny files_write' }).click();
    await page.locator('.tool .state', { hasText: 'denied' }).waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':enabled')).waitFor();
    expect(inOwnFolder(`denied-${tag}.txt`)).toBeUndefined();
  });

  it('resumes an answer after a reload: the question still waits for its answer, and approving it finishes it', async () => {
    await page.goto(`${server.url}/app`);
    await ask(page, `write "resumed" to resumed-${tag}.txt`);
    await page.getByRole('button', { name: 'Approve files_write' }).waitFor();
    await page.reload();
    // The reload lost the page; the stream is picked up again and the confirmation is asked again.
    await page.getByRole('button', { name: 'Approve files_write' }).click();
    await page.locator('.tool .state', { hasText: 'done' }).last().waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':enabled')).waitFor();
    expect(inOwnFolder(`resumed-${tag}.txt`)).toMatch(/^resumed\n?$/);
    await expect(page.locator('.message.assistant').last().textContent()).resolves.toMatch(/resumed-/);
  });

  it('resumes a stream that dropped with Last-Event-ID, and the answer goes on', async () => {
    // The browser reaches the server through a TCP relay that can cut every open connection (cookies are per host,
    // not per port: the session goes with it).
    const relay = await startRelay(Number(new URL(server.url).port));
    try {
      const resumed: (string | undefined)[] = [];
      page.on('request', (request) => {
        if (/\/api\/v1\/queries\/[^/]+\/events/.test(request.url()))
          resumed.push(request.headers()['last-event-id']);
      });
      await page.goto(`${relay.url}/app`);
      await ask(page, `write "dropped" to dropped-${tag}.txt`);
      await page.getByRole('button', { name: 'Approve files_write' }).waitFor();
      relay.dropAll();
      await page.getByRole('button', { name: 'Approve files_write' }).click();
      await page.locator('.tool .state', { hasText: 'done' }).last().waitFor();
      await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':enabled')).waitFor();
      expect(inOwnFolder(`dropped-${tag}.txt`)).toMatch(/^dropped\n?$/);
      // The stream was asked for again, after the last event the page had.
      expect(resumed.length).toBeGreaterThan(0);
      expect(resumed.every((id) => id !== undefined && /^\d+$/.test(id))).toBe(true);
      await expect(page.locator('.message.assistant').last().textContent()).resolves.toMatch(/dropped-/);
    } finally {
      page.removeAllListeners('request');
      await relay.close();
    }
  });

  it('stops an answer with Stop: the change it waited for is never made', async () => {
    await page.goto(`${server.url}/app`);
    await ask(page, `write "never" to stopped-${tag}.txt`);
    await page.getByRole('button', { name: 'Approve files_write' }).waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Stopped (cancelled).').waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':enabled')).waitFor();
    expect(inOwnFolder(`stopped-${tag}.txt`)).toBeUndefined();
  });

  it('lists, searches, edits and deletes memories', async () => {
    await owner.createMemory({ body: { content: `The plumber is called Mario ${tag}` } });
    await page.goto(`${server.url}/app#memories`);
    await page.getByRole('heading', { name: 'Memories' }).waitFor();
    // One view at a time: the conversation is out of the way.
    await expect(page.locator('#chat-view').isVisible()).resolves.toBe(false);
    await page.getByLabel('Search memories').fill('plumber');
    await page.getByRole('button', { name: 'Search' }).click();
    const field = page.locator('#memory-list textarea');
    await page.waitForFunction("document.querySelectorAll('#memory-list textarea').length === 1");
    await expect(field.inputValue()).resolves.toBe(`The plumber is called Mario ${tag}`);
    await expectAccessible(page);
    await snapshot(page, 'memories-desktop');

    await field.fill(`The plumber is called Luigi ${tag}`);
    await page.getByRole('button', { name: /^Save memory/ }).click();
    await page.getByRole('status').getByText('Memory saved.').waitFor();
    const memories = await owner.listMemories({ query: { q: 'plumber' } });
    expect(memories.data.map((m) => m.content)).toEqual([`The plumber is called Luigi ${tag}`]);

    await page.getByRole('button', { name: /^Delete memory/ }).click();
    await page.getByRole('status').getByText('Memory deleted.').waitFor();
    await field.first().waitFor({ state: 'detached' });
    expect((await owner.listMemories({ query: { q: 'plumber' } })).data).toEqual([]);
  });

  it('shows a mail with markup in it as text: nothing in it runs', async () => {
    await owner.createConnection({
      body: {
        family: 'email',
        provider: 'imap',
        name: 'Alice at example.test',
        settings: {
          imap_host: '127.0.0.1',
          imap_port: 10143,
          imap_tls: false,
          smtp_host: '127.0.0.1',
          smtp_port: SMTP_PORT,
          smtp_tls: false,
          username: 'alice',
          from_address: 'alice@example.test',
        },
        secrets: { password: 'secret' },
      },
    });
    const hostile = `<img src=x onerror="window.__ran='img'"><script>window.__ran='script'</script>`;
    await deliverMail(
      'alice@example.test',
      'alice@example.test',
      `Hello ${tag} ${hostile}`,
      `Read this ${tag}: ${hostile} <b>bold</b>`,
    );
    await page.goto(`${server.url}/app`);
    await ask(page, 'read the latest mail from alice');
    const answer = page.locator('.message.assistant').last();
    await answer.locator('.text', { hasText: tag }).waitFor();
    // The markup is there, as the characters it is made of; none of it became an element, and nothing ran.
    await expect(answer.textContent()).resolves.toContain(`<script>window.__ran='script'</script>`);
    await expect(page.locator('#messages img, #messages script, #messages b').count()).resolves.toBe(0);
    await expect(page.evaluate('window.__ran')).resolves.toBeUndefined();
    await snapshot(page, 'chat-hostile-mail-desktop');

    // A send waits for the yes, and goes to the SMTP server once given.
    await ask(page, `email bob@example.test saying lunch at noon ${tag}`);
    await page.getByRole('button', { name: 'Approve email_send' }).click();
    await page.locator('.message.assistant .text', { hasText: 'Sent to bob@example.test.' }).waitFor();
    // …and it reached Bob's inbox through the SMTP server.
    await expect(waitForMailMatch('bob', tag, /lunch at noon/)).resolves.toBe('lunch at noon');
  });

  it('pairs a phone by its code; revoking it on /profile signs the phone out', async () => {
    const phoneContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    try {
      const phone = await phoneContext.newPage();
      const created = await owner.createPairingCode();
      // What the QR code of `assistant pair` opens: the pairing page, the code after '#'.
      await phone.goto(`${server.url}/app/pair#${created.code}`);
      await expect(phone.getByLabel('Pairing code').inputValue()).resolves.toBe(created.code);
      // The code does not stay in the address (nor in the history).
      expect(new URL(phone.url()).hash).toBe('');
      await expectAccessible(phone);
      await snapshot(phone, 'pair-phone');
      await phone.getByLabel('Name of this device').fill(`Phone ${tag}`);
      await phone.getByRole('button', { name: 'Pair', exact: true }).click();
      await phone.waitForURL('**/app');

      // The device's token is in an HttpOnly cookie: no script of the page can read it.
      const cookies = await phoneContext.cookies();
      const device = cookies.find((c) => c.name === 'assistant_device');
      expect(device).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
      expect(device?.value).toMatch(/^asd_/);
      await expect(phone.evaluate('document.cookie')).resolves.not.toContain('asd_');

      await ask(phone, `remember that the phone ${tag} works`);
      await phone.getByText('Saved to your memories.').waitFor();
      await expectAccessible(phone);
      await snapshot(phone, 'chat-phone');
      await phone.getByRole('button', { name: 'Discussions' }).click();
      await snapshot(phone, 'discussions-phone');
      await phone.getByRole('button', { name: 'Discussions' }).click();
      await phone.goto(`${server.url}/app#memories`);
      await phone.locator('#memory-list textarea').first().waitFor();
      await expectAccessible(phone);
      await snapshot(phone, 'memories-phone');
      await phone.goto(`${server.url}/app`);

      // The desktop's /profile lists the phone; revoking it signs the phone out at its next request.
      await page.goto(`${server.url}/profile`);
      await expect(page.textContent('main')).resolves.toContain(`Phone ${tag}`);
      await page.getByRole('button', { name: `Revoke Phone ${tag}` }).click();
      await phone.waitForURL('**/app/pair?signed_out=1', { timeout: 20_000 });
      await phone.getByText('This device was signed out. Pair it again.').waitFor();
      await expect(phoneContext.cookies()).resolves.not.toContainEqual(
        expect.objectContaining({ name: 'assistant_device' }),
      );
    } finally {
      await phoneContext.close();
    }
  });

  it('typing the code works too, and a wrong one is refused on the page', async () => {
    const phoneContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    try {
      const phone = await phoneContext.newPage();
      await phone.goto(`${server.url}/app/pair`);
      await phone.getByLabel('Pairing code').fill('AAAA-AAAA');
      await phone.getByRole('button', { name: 'Pair', exact: true }).click();
      await phone.getByText('That code cannot be used').waitFor();
      const created = await owner.createPairingCode();
      await phone.getByLabel('Pairing code').fill(created.code.toLowerCase());
      await phone.getByRole('button', { name: 'Pair', exact: true }).click();
      await phone.waitForURL('**/app');
      await phone.getByRole('button', { name: 'Unpair' }).click();
      await phone.waitForURL('**/app/pair?signed_out=1');
      expect((await owner.listDevices()).data.map((d) => d.name)).not.toContain('Phone');
    } finally {
      await phoneContext.close();
    }
  });

  it('looks right at a phone size, and every page passes the accessibility check', async () => {
    const phoneContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    try {
      const phone = await phoneContext.newPage();
      const link = await freshSignInLink();
      await phone.goto(link);
      for (const [path, name] of [
        ['/app', 'chat-empty-phone'],
        ['/profile', 'profile-phone'],
      ] as const) {
        await phone.goto(`${server.url}${path}`);
        await expectAccessible(phone);
        await snapshot(phone, name);
      }
      await page.goto(`${server.url}/profile`);
      await expectAccessible(page);
      await snapshot(page, 'profile-desktop');
      // The pairing page, as a computer that is not signed in sees it.
      const stranger = await browser.newContext({ viewport: DESKTOP });
      const pairing = await stranger.newPage();
      await pairing.goto(`${server.url}/app/pair?signed_out=1`);
      await expectAccessible(pairing);
      await snapshot(pairing, 'pair-desktop');
      await stranger.close();
    } finally {
      await phoneContext.close();
    }
  });

  /** A new one-time sign-in link from the running server (`assistant serve --login-link`). */
  async function freshSignInLink(): Promise<string> {
    const result = await run(BUILT.cli, ['serve', '--login-link', '--data-dir', dataDir], {});
    const link = /(http:\/\/\S+\/signin\/link\?token=\S+)/.exec(result.stdout + result.stderr)?.[1];
    if (!link) throw new Error(`no sign-in link in: ${result.stdout}${result.stderr}`);
    return link;
  }
});

describe('the web app on the hosted API, in a browser', () => {
  let target: Target;
  let browser: Browser;

  beforeAll(async () => {
    target = await startHosted();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await target?.stop();
  });

  it('is served there too: after signing in, /app answers a question as it streams', async () => {
    const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    try {
      const page = await context.newPage();
      const email = `web-app-${randomBytes(4).toString('hex')}@example.test`;
      const password = 'a long enough password';
      await page.goto(`${target.url}/signup`);
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('status').waitFor();
      await page.goto(`${target.url}/app`);
      // Signed out: sent to sign in, and back to the app after.
      await page.waitForURL('**/signin?return_to=%2Fapp');
      await page.getByLabel('Email', { exact: true }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/app');
      await page.getByLabel('Your question').fill('remember that the hosted app works');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByText('Saved to your memories.').waitFor();
      await expectAccessible(page);
      await snapshot(page, 'chat-hosted-phone');
    } finally {
      await context.close();
    }
  });
});
