/**
 * The hosted service's passwords: "forgot password" mails a link through the service's own SMTP settings — the
 * machine's OpenSMTPD (127.0.0.1:10025) delivers example.test mail into Dovecot, and the test reads it back over
 * IMAP (127.0.0.1:10143) — the link sets a new password once, within 30 minutes, and signs other browsers out;
 * the answer is the same whether or not the email has an account; mails are limited per address and requests per
 * client; the password change asks for the current password. And on a self-hosted server, the owner's sign-in
 * links for household members, which no member can make.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { ImapFlow } from 'imapflow';
import type { LightMyRequestResponse } from 'fastify';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';
import { createAccount } from '../accounts/create-account';
import type { ServerConfig } from '@assistant/server-kit';
import {
  issuePasswordLink,
  LINK_MAILED,
  PASSWORD_MAILS_PER_ADDRESS,
  hashPassword,
  issueSignInLink,
} from '@assistant/web';

const MAIL: NonNullable<ServerConfig['mail']> = {
  smtpUrl: 'smtp://127.0.0.1:10025',
  from: 'assistant@example.test',
};
const OLD_PASSWORD = 'the old password';
const NEW_PASSWORD = 'a brand new password';

/** A hosted app whose links point at an address of its own, so that its mails are told apart from others'. */
async function hostedApp(config: Partial<ServerConfig> = {}): Promise<InProcessApp & { origin: string }> {
  const origin = `http://assistant-${randomBytes(6).toString('hex')}.example.test`;
  const api = await startInProcessApp({
    config: { deployment: 'hosted', mail: MAIL, publicUrl: origin, logLevel: 'trace', ...config },
  });
  return Object.assign(api, { origin });
}

async function accountWithPassword(api: InProcessApp, email: string): Promise<string> {
  const user = await api.storage.users.create({ email, displayName: email.split('@')[0] });
  await api.storage.users.setPasswordHash(user.id, await hashPassword(OLD_PASSWORD));
  return user.id;
}

/** The Dovecot mailbox of `user` (alice or bob): the password links mailed to it by the app at `origin`. */
async function linksMailedTo(user: 'alice' | 'bob', origin: string): Promise<string[]> {
  const client = new ImapFlow({
    host: '127.0.0.1',
    port: 10143,
    secure: false,
    auth: { user, pass: 'secret' },
    logger: false,
  });
  await client.connect();
  try {
    const lock = await client.getMailboxLock('INBOX');
    try {
      const links: string[] = [];
      const found = await client.search({ body: origin }, { uid: true });
      for (const uid of found || []) {
        const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
        // The body is quoted-printable (its lines are long): soft breaks and =XX escapes undone.
        const text = (message ? message.source : undefined)
          ?.toString('utf8')
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/g, (_: string, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        links.push(
          ...(text?.match(new RegExp(`${origin}/password/reset\\?token=[A-Za-z0-9_-]+`, 'g')) ?? []),
        );
      }
      return links;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
}

async function waitForLinks(user: 'alice' | 'bob', origin: string, count: number): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const links = await linksMailedTo(user, origin);
    if (links.length >= count || Date.now() > deadline) return links;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const pathOf = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};
const withoutCsrf = (res: LightMyRequestResponse) => res.body.replace(/name="csrf" value="[^"]+"/g, '');

async function askForLink(api: InProcessApp, email: string): Promise<LightMyRequestResponse> {
  const browser = new PageClient(api);
  await browser.get('/password/forgot');
  return browser.post('/password/forgot', { email });
}

describe('forgot password, on the hosted service', () => {
  let api: InProcessApp & { origin: string };
  beforeAll(async () => {
    api = await hostedApp();
  });
  afterAll(() => api?.close());

  it('mails a link that sets a new password once, signs the other browsers out, and is refused the second time', async () => {
    const alice = await accountWithPassword(api, 'alice@example.test');
    const elsewhere = new PageClient(api);
    await elsewhere.signInAs(alice);
    expect((await elsewhere.get('/profile')).statusCode).toBe(200);

    const asked = await askForLink(api, 'Alice@Example.test');
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain(LINK_MAILED);
    const [link] = await waitForLinks('alice', api.origin, 1);
    expect(link).toBeDefined();

    const browser = new PageClient(api);
    const form = await browser.get(pathOf(link));
    expect(form.statusCode).toBe(200);
    const token = new URL(link).searchParams.get('token') as string;
    // Too short: the link is not spent.
    expect((await browser.post('/password/reset', { token, password: 'short' })).statusCode).toBe(400);
    const set = await browser.post('/password/reset', { token, password: NEW_PASSWORD });
    expect(set.statusCode).toBe(303);
    expect(set.headers.location).toBe('/profile');
    expect((await browser.get('/profile')).statusCode).toBe(200);
    expect((await elsewhere.get('/profile')).headers.location).toMatch(/^\/signin/);

    const signIn = new PageClient(api);
    await signIn.get('/signin');
    const old = await signIn.post('/signin', { email: 'alice@example.test', password: OLD_PASSWORD });
    expect(old.statusCode).toBe(401);
    const fresh = await signIn.post('/signin', { email: 'alice@example.test', password: NEW_PASSWORD });
    expect(fresh.statusCode).toBe(303);

    const again = new PageClient(api);
    await again.get(pathOf(link));
    const reused = await again.post('/password/reset', { token, password: 'yet another password' });
    expect(reused.statusCode).toBe(400);
    expect(reused.body).toContain('This link does not work');
  });

  it('answers an email without an account the same', async () => {
    await accountWithPassword(api, 'known@example.test');
    const known = await askForLink(api, 'known@example.test');
    const unknown = await askForLink(api, 'nobody@example.test');
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(withoutCsrf(unknown)).toBe(withoutCsrf(known));
  });

  it('answers before any mail is sent: a mail server that never replies slows no answer down', async () => {
    // Accepts connections and says nothing: a mail sent before the answer would hold it for nodemailer's
    // greeting timeout (30 s); one sent after it holds nothing.
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const stalled = await hostedApp({ mail: { ...MAIL, smtpUrl: `smtp://127.0.0.1:${port}` } });
    try {
      const time = async (email: string) => {
        const started = process.hrtime.bigint();
        const res = await askForLink(stalled, email);
        return { res, ms: Number(process.hrtime.bigint() - started) / 1e6 };
      };
      await accountWithPassword(stalled, 'known@example.test');
      const known = await time('known@example.test');
      const unknown = await time('nobody@example.test');
      expect(withoutCsrf(known.res)).toBe(withoutCsrf(unknown.res));
      expect(known.ms).toBeLessThan(2_000);
      expect(unknown.ms).toBeLessThan(2_000);
    } finally {
      await stalled.close();
      held.forEach((socket) => socket.destroy());
      silent.close();
    }
  }, 10_000);

  it('refuses an expired link, a sign-in link’s token and a made-up one', async () => {
    const user = await accountWithPassword(api, 'expired@example.test');
    const expired = new URL(await issuePasswordLink(api.storage, user, api.origin, -1));
    const signInToken = new URL(await issueSignInLink(api.storage, user, api.origin)).searchParams.get(
      'token',
    );
    for (const token of [expired.searchParams.get('token'), signInToken, 'a'.repeat(43)]) {
      const browser = new PageClient(api);
      await browser.get(`/password/reset?token=${token}`);
      const res = await browser.post('/password/reset', { token: String(token), password: NEW_PASSWORD });
      expect(res.statusCode).toBe(400);
    }
    const { passwordHash } = (await api.storage.users.findPasswordHash('expired@example.test')) ?? {};
    expect(passwordHash).toBeDefined();
    const signIn = new PageClient(api);
    await signIn.get('/signin');
    expect(
      (await signIn.post('/signin', { email: 'expired@example.test', password: NEW_PASSWORD })).statusCode,
    ).toBe(401);
  });

  it('mails one address at most 3 times in 30 minutes (PASSWORD_MAILS_PER_ADDRESS)', async () => {
    await accountWithPassword(api, 'bob@example.test');
    for (let i = 0; i < PASSWORD_MAILS_PER_ADDRESS + 2; i++) {
      expect((await askForLink(api, 'bob@example.test')).body).toContain(LINK_MAILED);
    }
    await waitForLinks('bob', api.origin, PASSWORD_MAILS_PER_ADDRESS);
    // Long enough for the ones past the limit to have arrived, had they been sent.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await linksMailedTo('bob', api.origin)).toHaveLength(PASSWORD_MAILS_PER_ADDRESS);
  });

  it('sign-up with the email of an account the operator made says what to do, and mails it a link to choose a password', async () => {
    // An app of its own: bob's mailbox gets only this app's mail.
    const operatorMade = await hostedApp();
    try {
      await createAccount(operatorMade.storage, { email: 'bob@example.test', scopes: [] });
      const browser = new PageClient(operatorMade);
      await browser.get('/signup');
      const res = await browser.post('/signup', { email: 'bob@example.test', password: NEW_PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('a link to choose one is on its way to this email');
      const [link] = await waitForLinks('bob', operatorMade.origin, 1);
      expect(link).toBeDefined();
      const set = new PageClient(operatorMade);
      await set.get(pathOf(link));
      const token = new URL(link).searchParams.get('token') as string;
      expect((await set.post('/password/reset', { token, password: NEW_PASSWORD })).statusCode).toBe(303);
    } finally {
      await operatorMade.close();
    }
  });

  it('writes no link’s token to the log', async () => {
    const tokens = (await linksMailedTo('alice', api.origin)).map((l) =>
      new URL(l).searchParams.get('token'),
    );
    expect(tokens.length).toBeGreaterThan(0);
    const logged = JSON.stringify(api.logs());
    expect(logged).toContain('/password/reset');
    for (const token of tokens) expect(logged).not.toContain(String(token));
  });
});

describe('an account the operator creates on the hosted service', () => {
  it('gets a link to choose its first password, once', async () => {
    const api = await hostedApp();
    try {
      const created = await createAccount(api.storage, {
        email: 'new@example.test',
        scopes: [],
        passwordLinkBaseUrl: api.origin,
      });
      const link = created.set_password_url as string;
      expect(link).toMatch(new RegExp(`^${api.origin}/password/reset\\?token=`));
      const token = new URL(link).searchParams.get('token') as string;
      const browser = new PageClient(api);
      await browser.get(pathOf(link));
      expect((await browser.post('/password/reset', { token, password: NEW_PASSWORD })).statusCode).toBe(303);
      expect((await browser.get('/profile')).body).toContain('new@example.test');
      const again = new PageClient(api);
      await again.get(pathOf(link));
      expect((await again.post('/password/reset', { token, password: NEW_PASSWORD })).statusCode).toBe(400);
    } finally {
      await api.close();
    }
  });
});

describe('the password change on /profile', () => {
  let api: InProcessApp & { origin: string };
  beforeAll(async () => {
    api = await hostedApp();
  });
  afterAll(() => api?.close());

  it('needs the current password, and signs out the other browsers but not this one', async () => {
    const user = await accountWithPassword(api, 'changer@example.test');
    const here = new PageClient(api);
    const elsewhere = new PageClient(api);
    await here.signInAs(user);
    await elsewhere.signInAs(user);
    expect((await here.get('/profile')).body).toContain('href="/profile/password"');
    await here.get('/profile/password');

    const wrong = await here.post('/profile/password', { current: 'not it at all', password: NEW_PASSWORD });
    expect(wrong.statusCode).toBe(401);
    expect((await elsewhere.get('/profile')).statusCode).toBe(200);

    const changed = await here.post('/profile/password', { current: OLD_PASSWORD, password: NEW_PASSWORD });
    expect(changed.statusCode).toBe(200);
    expect((await here.get('/profile')).statusCode).toBe(200);
    expect((await elsewhere.get('/profile')).headers.location).toMatch(/^\/signin/);
    const signIn = new PageClient(api);
    await signIn.get('/signin');
    expect(
      (await signIn.post('/signin', { email: 'changer@example.test', password: NEW_PASSWORD })).statusCode,
    ).toBe(303);
  });

  it.each(['/password/forgot', '/password/reset', '/profile/password'])(
    'refuses a POST to %s without the form’s CSRF token',
    async (path) => {
      const user = await accountWithPassword(api, `csrf-${path.replace(/\W/g, '')}@example.test`);
      const browser = new PageClient(api);
      await browser.signInAs(user);
      await browser.get('/profile');
      const res = await browser.post(
        path,
        { email: 'alice@example.test', current: OLD_PASSWORD, password: NEW_PASSWORD },
        null,
      );
      expect(res.statusCode).toBe(403);
    },
  );
});

describe('the rate limit per client', () => {
  it('answers 429 to a client asking for links past the auth bucket', async () => {
    const api = await hostedApp({
      rateLimits: {
        core: { limit: 1_000, windowSeconds: 3_600 },
        queries: { limit: 1_000, windowSeconds: 3_600 },
        auth: { limit: 3, windowSeconds: 3_600 },
      },
    });
    try {
      const browser = new PageClient(api);
      await browser.get('/password/forgot');
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await browser.post('/password/forgot', { email: `x${i}@example.test` })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await api.close();
    }
  });
});

describe('sign-in links for household members, on a self-hosted server', () => {
  let api: InProcessApp;
  let member: string;
  beforeAll(async () => {
    api = await startInProcessApp();
    member = (await createAccount(api.storage, { email: 'sam@example.test', scopes: [] })).user_id;
  });
  afterAll(() => api?.close());

  it('the owner makes one on /profile, and it signs the member in', async () => {
    const owner = new PageClient(api);
    await owner.signInAs(api.userId);
    expect((await owner.get('/profile')).body).toContain('Make a sign-in link');
    const made = await owner.post('/profile/sign-in-links', { email: 'sam@example.test' });
    expect(made.statusCode).toBe(201);
    const link = /value="(http[^"]+\/signin\/link\?token=[^"]+)"/.exec(made.body)?.[1] as string;
    expect(link).toBeDefined();
    const sam = new PageClient(api);
    expect((await sam.get(pathOf(link.replace(/&amp;/g, '&')))).statusCode).toBe(303);
    expect((await sam.get('/profile')).body).toContain('sam@example.test');
    expect((await owner.post('/profile/sign-in-links', { email: 'kim@example.test' })).statusCode).toBe(404);
  });

  it('a member can make none, for the owner or anyone else', async () => {
    const sam = new PageClient(api);
    await sam.signInAs(member);
    expect((await sam.get('/profile')).body).not.toContain('Make a sign-in link');
    for (const email of ['tester@example.test', 'sam@example.test']) {
      const res = await sam.post('/profile/sign-in-links', { email });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('/signin/link?token=');
    }
  });

  it('refuses the form without its CSRF token', async () => {
    const owner = new PageClient(api);
    await owner.signInAs(api.userId);
    await owner.get('/profile');
    expect((await owner.post('/profile/sign-in-links', { email: 'sam@example.test' }, null)).statusCode).toBe(
      403,
    );
  });

  it('has no password pages', async () => {
    expect((await new PageClient(api).get('/password/forgot')).statusCode).toBe(404);
  });
});

describe('sign-up on a hosted service that sends no mail', () => {
  it('tells an email that had an account without a password to ask the operator, and promises no mail', async () => {
    const api = await startInProcessApp({ config: { deployment: 'hosted' } });
    try {
      await createAccount(api.storage, { email: 'made@example.test', scopes: [] });
      const browser = new PageClient(api);
      await browser.get('/signup');
      const res = await browser.post('/signup', { email: 'made@example.test', password: NEW_PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('ask the operator of this service for a link');
      expect(res.body).not.toContain('on its way');
      expect(res.body).not.toContain('Forgot your password?');
      expect((await browser.get('/password/forgot')).statusCode).toBe(503);
    } finally {
      await api.close();
    }
  });
});
