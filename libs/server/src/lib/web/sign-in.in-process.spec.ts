/**
 * Hosted sign-up and sign-in with email and password, the lockout after repeated failures, `return_to`, and what
 * a self-hosted server offers instead (the one-time link).
 */
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';

const PASSWORD = 'correct horse battery staple';

describe('on the hosted service', () => {
  let api: InProcessApp;
  beforeAll(async () => {
    api = await startInProcessApp({ config: { deployment: 'hosted' } });
  });
  afterAll(() => api?.close());

  let accounts = 0;
  /** Signs a new account up in its own browser (which sign-up does not sign in); returns the email. */
  async function signedUpAccount(): Promise<string> {
    const email = `user${++accounts}@example.test`;
    const browser = new PageClient(api);
    await browser.get('/signup');
    const res = await browser.post('/signup', { email, password: PASSWORD });
    expect(res.statusCode).toBe(200);
    return email;
  }

  async function signIn(email: string, password: string, returnTo?: string) {
    const browser = new PageClient(api);
    await browser.get('/signin');
    const res = await browser.post('/signin', {
      email,
      password,
      ...(returnTo ? { return_to: returnTo } : {}),
    });
    return { browser, res };
  }

  it('signs up with an email and a password of 10 characters or more, then signs in with them', async () => {
    const browser = new PageClient(api);
    await browser.get('/signup?return_to=%2Fprofile%23tokens');
    const res = await browser.post('/signup', {
      email: 'Grace@Example.test',
      password: '0123456789',
      return_to: '/profile#tokens',
    });

    // The sign-in form, the email filled in and return_to kept: nothing says whether the account is new.
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Sign in to continue.');
    expect(res.body).toMatch(/<form method="post" action="\/signin">/);
    expect(res.body).toContain('value="Grace@Example.test"');
    expect(res.body).toMatch(/name="return_to" value="\/profile#tokens"/);
    expect((await browser.get('/profile')).statusCode).toBe(303);

    const signedIn = await browser.post('/signin', {
      email: 'Grace@Example.test',
      password: '0123456789',
      return_to: '/profile#tokens',
    });
    expect(signedIn.headers.location).toBe('/profile#tokens');
    const profile = await browser.get('/profile');
    expect(profile.statusCode).toBe(200);
    expect(profile.body).toContain('grace@example.test');
  });

  it('refuses a shorter password and says how long it must be', async () => {
    const browser = new PageClient(api);
    await browser.get('/signup');
    const res = await browser.post('/signup', { email: 'short@example.test', password: '123456789' });

    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Choose a password of at least 10 characters.');
    expect(await api.storage.users.findByEmail('short@example.test')).toBeNull();
  });

  it('answers a sign-up for an email that has an account as one for a new email, and changes nothing', async () => {
    const email = await signedUpAccount();
    const signUp = async (address: string) => {
      const browser = new PageClient(api);
      await browser.get('/signup');
      const res = await browser.post('/signup', { email: address, password: 'the intruder’s password' });
      return { browser, res };
    };
    const taken = await signUp(email.toUpperCase());
    const fresh = await signUp(`NEW-${email.toUpperCase()}`);

    // The same status, headers and page, but for the CSRF token and the email typed in.
    const page = (body: string) => body.replace(/value="[^"]*"/g, '');
    expect(taken.res.statusCode).toBe(fresh.res.statusCode);
    expect(page(taken.res.body)).toBe(page(fresh.res.body));
    const headerNames = (res: typeof taken.res) => Object.keys(res.headers).sort();
    expect(headerNames(taken.res)).toEqual(headerNames(fresh.res));
    expect(PageClient.setCookies(taken.res)).toEqual([]);
    expect(PageClient.setCookies(fresh.res)).toEqual([]);
    for (const { browser } of [taken, fresh]) expect((await browser.get('/profile')).statusCode).toBe(303);

    // The account keeps its password; the intruder's gets nowhere.
    expect((await signIn(email, PASSWORD)).res.statusCode).toBe(303);
    expect((await signIn(email, 'the intruder’s password')).res.statusCode).toBe(401);
  });

  it('stores an argon2id hash, never the password', async () => {
    const email = await signedUpAccount();
    const stored = await api.storage.users.findPasswordHash(email);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(stored?.passwordHash).not.toContain(PASSWORD);
  });

  it('signs in with the right password', async () => {
    const email = await signedUpAccount();
    const { browser, res } = await signIn(email, PASSWORD);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/profile');
    expect((await browser.get('/profile')).statusCode).toBe(200);
  });

  it('answers a wrong password, an unknown email and an account without a password alike', async () => {
    const email = await signedUpAccount();
    const answers = [
      await signIn(email, 'not the password'),
      await signIn('nobody@example.test', 'not the password'),
      await signIn('tester@example.test', 'not the password'),
    ];
    for (const { res } of answers) {
      expect(res.statusCode).toBe(401);
      expect(res.body).toContain('The email or password is wrong.');
    }
    const page = (body: string) => body.replace(/value="[^"]*"/g, '');
    expect(new Set(answers.map(({ res }) => page(res.body))).size).toBe(1);
  });

  describe('lockout', () => {
    it('after 5 failures for an email within 15 minutes, even the right password is refused, and the page says so', async () => {
      const email = await signedUpAccount();
      for (let i = 0; i < 5; i++)
        expect((await signIn(email, `wrong password ${i}`)).res.statusCode).toBe(401);

      const { browser, res } = await signIn(email, PASSWORD);

      expect(res.statusCode).toBe(429);
      expect(res.body).toContain('Too many failed sign-ins for this email. Wait 15 minutes, then try again.');
      expect((await browser.get('/profile')).statusCode).toBe(303);
    });

    it('4 failures do not lock; a success starts the count again', async () => {
      const email = await signedUpAccount();
      for (let i = 0; i < 4; i++) await signIn(email, 'wrong password');
      expect((await signIn(email, PASSWORD)).res.statusCode).toBe(303);
      for (let i = 0; i < 4; i++) await signIn(email, 'wrong password');
      expect((await signIn(email, PASSWORD)).res.statusCode).toBe(303);
    });

    it('locks an email without an account the same way, so the lockout tells nothing', async () => {
      for (let i = 0; i < 5; i++) await signIn('ghost@example.test', 'wrong password');
      const { res } = await signIn('ghost@example.test', 'wrong password');
      expect(res.statusCode).toBe(429);
      expect(res.body).toContain('Too many failed sign-ins for this email.');
    });

    it('counts guesses sent all at once', async () => {
      const email = await signedUpAccount();
      const browsers = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const browser = new PageClient(api);
          await browser.get('/signin');
          return browser;
        }),
      );
      const answers = await Promise.all(
        browsers.map((b, i) => b.post('/signin', { email, password: `guess ${i}` })),
      );
      expect(answers.filter((r) => r.statusCode === 401).length).toBeLessThanOrEqual(5);
      expect((await signIn(email, PASSWORD)).res.statusCode).toBe(429);
    });

    it('does not lock other emails', async () => {
      const locked = await signedUpAccount();
      const other = await signedUpAccount();
      for (let i = 0; i < 6; i++) await signIn(locked, 'wrong password');
      expect((await signIn(other, PASSWORD)).res.statusCode).toBe(303);
    });
  });

  describe('return_to', () => {
    it('comes back to a path on this server after signing in', async () => {
      const email = await signedUpAccount();
      const { res } = await signIn(email, PASSWORD, '/oauth/interaction/abc123?x=1');
      expect(res.headers.location).toBe('/oauth/interaction/abc123?x=1');
    });

    it.each([
      'https://evil.example/',
      '//evil.example/profile',
      '/\\evil.example',
      'javascript:alert(1)',
      'profile',
      '/%0d%0aSet-Cookie:x=1'.replace('%0d%0a', '\r\n'),
      '/.//evil.example',
      '/a/..//evil.example',
      '/%2e//evil.example',
    ])('ignores %j and goes to /profile', async (returnTo) => {
      const email = await signedUpAccount();
      const { res } = await signIn(email, PASSWORD, returnTo);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/profile');
    });

    it('is carried from the sign-in page into its form, and to the sign-up page', async () => {
      const browser = new PageClient(api);
      const page = await browser.get('/signin?return_to=%2Foauth%2Finteraction%2Fxyz');
      expect(page.body).toMatch(/<input type="hidden" name="return_to" value="\/oauth\/interaction\/xyz"/);
      expect(page.body).toContain('href="/signup?return_to=%2Foauth%2Finteraction%2Fxyz"');
      const offsite = await browser.get('/signin?return_to=https%3A%2F%2Fevil.example');
      expect(offsite.body).not.toContain('evil.example');
    });

    it('sends an already signed-in browser straight there', async () => {
      const browser = new PageClient(api);
      await browser.signInAs(api.userId);
      const res = await browser.get('/signin?return_to=%2Fprofile%23tokens');
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/profile#tokens');
    });

    it.each(['%2F.%2F%2Fevil.example', '%2Fa%2F..%2F%2Fevil.example', '%2F%252e%2F%2Fevil.example'])(
      'does not send an already signed-in browser to return_to=%s, which resolves to //evil.example',
      async (returnTo) => {
        const browser = new PageClient(api);
        await browser.signInAs(api.userId);
        const res = await browser.get(`/signin?return_to=${returnTo}`);
        expect(res.statusCode).toBe(303);
        expect(res.headers.location).toBe('/profile');
      },
    );
  });

  it('signing out ends the session', async () => {
    const email = await signedUpAccount();
    const { browser } = await signIn(email, PASSWORD);
    await browser.get('/profile');
    const out = await browser.post('/signout');
    expect(out.headers.location).toBe('/signin');
    expect((await browser.get('/profile')).statusCode).toBe(303);
  });
});

describe('on a self-hosted server', () => {
  let api: InProcessApp;
  beforeAll(async () => {
    api = await startInProcessApp();
  });
  afterAll(() => api?.close());

  it('has no sign-up: /signup is a 404 page, and so is posting to it', async () => {
    const browser = new PageClient(api);
    const page = await browser.get('/signup');
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    // With a valid CSRF token (from a signed-in page), so that it is the route itself that says no.
    await browser.signInAs(api.userId);
    await browser.get('/profile');
    expect((await browser.post('/signup', { email: 'x@example.test', password: PASSWORD })).statusCode).toBe(
      404,
    );
    expect((await browser.post('/signin', { email: 'x@example.test', password: PASSWORD })).statusCode).toBe(
      404,
    );
    expect(await api.storage.users.findByEmail('x@example.test')).toBeNull();
  });

  it('explains the one-time link on /signin instead of asking for a password', async () => {
    const page = await new PageClient(api).get('/signin');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('assistant serve --login-link');
    expect(page.body).not.toContain('type="password"');
  });
});
