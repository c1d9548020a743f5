/**
 * Web sessions and CSRF: what the session cookie looks like over http and https, that only its digest is stored,
 * that a POST without the session's own CSRF token is refused (synchronizer token), and that signing in starts a
 * new session instead of promoting the one the browser had.
 */
import { createHash } from 'node:crypto';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

let api: InProcessApp;
beforeAll(async () => {
  api = await startInProcessApp({ config: { deployment: 'hosted', trustProxy: true } });
});
afterAll(() => api?.close());

function sessionCookieOf(res: Awaited<ReturnType<PageClient['get']>>): string {
  const cookie = PageClient.setCookies(res).find((c) => /^(__Host-)?assistant_session=/.test(c));
  if (!cookie) throw new Error('no session cookie was set');
  return cookie;
}

describe('the session cookie', () => {
  it('over http: assistant_session, HttpOnly, SameSite=Lax, Path=/, not Secure', async () => {
    const cookie = sessionCookieOf(await new PageClient(api).get('/signin'));

    expect(cookie).toMatch(/^assistant_session=[A-Za-z0-9_-]{43};/);
    const attributes = cookie.split('; ').slice(1);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));
    expect(attributes).not.toContain('Secure');
    expect(attributes.some((a) => a.startsWith('Domain'))).toBe(false);
  });

  it('over https (a trusted proxy says so): __Host-assistant_session, Secure as well', async () => {
    const browser = new PageClient(api, { 'x-forwarded-proto': 'https' });
    const cookie = sessionCookieOf(await browser.get('/signin'));

    expect(cookie).toMatch(/^__Host-assistant_session=/);
    expect(cookie.split('; ')).toEqual(
      expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']),
    );
    // And it is the cookie the server reads back over https: the form's token is accepted with it.
    const account = { email: 'https@example.test', password: 'long enough password' };
    await browser.post('/signup', account);
    await browser.post('/signin', account);
    expect((await browser.get('/profile')).statusCode).toBe(200);
  });

  it('a plain-http cookie does not sign a browser in over https', async () => {
    const browser = new PageClient(api);
    await browser.signInAs(api.userId);
    const value = browser.cookies.get('assistant_session') as string;

    const overHttps = await api.inject({
      method: 'GET',
      url: '/profile',
      token: null,
      headers: { 'x-forwarded-proto': 'https', cookie: `assistant_session=${value}` },
    });
    expect(overHttps.statusCode).toBe(303);
  });

  it('only its SHA-256 digest is stored', async () => {
    const browser = new PageClient(api);
    await browser.signInAs(api.userId);
    const value = browser.cookies.get('assistant_session') as string;

    expect(await api.storage.webSessions.findLive(value)).toBeNull();
    expect(await api.storage.webSessions.findLive(sha256(value))).toMatchObject({ userId: api.userId });
  });

  it('a sign-in replaces the session the browser had: a cookie planted before it is worth nothing after', async () => {
    const browser = new PageClient(api);
    await browser.get('/signin');
    const before = browser.cookies.get('assistant_session') as string;
    const account = { email: 'fixation@example.test', password: 'long enough password' };
    await browser.post('/signup', account);
    await browser.post('/signin', account);
    const after = browser.cookies.get('assistant_session') as string;

    expect(after).not.toBe(before);
    const planted = await api.inject({
      method: 'GET',
      url: '/profile',
      token: null,
      headers: { cookie: `assistant_session=${before}` },
    });
    expect(planted.statusCode).toBe(303);
    expect((await browser.get('/profile')).statusCode).toBe(200);
  });

  it('signing out ends the session in the database, not only in the browser', async () => {
    const browser = new PageClient(api);
    await browser.signInAs(api.userId);
    const value = browser.cookies.get('assistant_session') as string;
    await browser.get('/profile');

    const out = await browser.post('/signout');
    expect(out.statusCode).toBe(303);
    expect(PageClient.setCookies(out).join()).toMatch(/assistant_session=; .*Max-Age=0/);
    expect(await api.storage.webSessions.findLive(sha256(value))).toBeNull();
  });
});

describe('CSRF: every POST carries the session’s own token', () => {
  async function signedIn(): Promise<PageClient> {
    const browser = new PageClient(api);
    await browser.signInAs(api.userId);
    await browser.get('/profile');
    return browser;
  }

  it.each([
    ['no token', null],
    ['a made-up token', 'x'.repeat(43)],
    ['an empty token', ''],
  ])('%s: 403 with a plain page, and nothing happens', async (_name, token) => {
    const browser = await signedIn();

    const res = await browser.post('/signout', {}, token);

    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Form refused');
    expect((await browser.get('/profile')).statusCode).toBe(200);
  });

  it('another session’s token is refused', async () => {
    const mallory = await signedIn();
    const victim = await signedIn();

    const res = await victim.post(
      '/profile/tokens',
      { name: 'planted', scope: 'read:account', expiry: '' },
      mallory.csrf,
    );

    expect(res.statusCode).toBe(403);
    expect((await victim.get('/profile')).body).not.toContain('planted');
  });

  it('a browser without any session cannot post at all, sign-in form included', async () => {
    const res = await new PageClient(api).post(
      '/signin',
      { email: 'a@example.test', password: 'whatever123' },
      'x',
    );
    expect(res.statusCode).toBe(403);
  });

  it('the token in the form is the one the session checks: the same POST with it passes', async () => {
    const browser = await signedIn();
    const res = await browser.post('/profile/tokens', { name: 'fine', scope: 'read:account', expiry: '' });
    expect(res.statusCode).toBe(201);
  });
});
