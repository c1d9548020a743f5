/** The self-hosted owner's one-time sign-in link: it signs in once, within 15 minutes, and is stored as a digest. */
import { createHash, randomBytes } from 'node:crypto';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';
import { issueSignInLink, SIGN_IN_LINK_LIFETIME_MS } from '@assistant/web';

let api: InProcessApp;
beforeAll(async () => {
  api = await startInProcessApp();
});
afterAll(() => api?.close());

const pathOf = (link: string) => {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
};

it('looks like <base>/signin/link?token=…', async () => {
  const link = await issueSignInLink(api.storage, api.userId, 'http://127.0.0.1:7747');
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:7747\/signin\/link\?token=[A-Za-z0-9_-]{43}$/);
});

it('signs the owner in and goes to /profile, once: the second use is refused', async () => {
  const link = pathOf(await issueSignInLink(api.storage, api.userId, 'http://localhost'));
  const browser = new PageClient(api);

  const first = await browser.get(link);
  expect(first.statusCode).toBe(303);
  expect(first.headers.location).toBe('/profile');
  expect((await browser.get('/profile')).statusCode).toBe(200);

  const again = await new PageClient(api).get(link);
  expect(again.statusCode).toBe(400);
  expect(again.body).toContain('This sign-in link does not work');
  expect(again.body).toContain('assistant serve --login-link');
  expect(PageClient.setCookies(again).join()).not.toMatch(/Max-Age=1209600/);
});

it('is refused once 15 minutes have passed', async () => {
  const token = randomBytes(32).toString('base64url');
  await api.storage.signInLinks.create({
    digest: createHash('sha256').update(token).digest('hex'),
    userId: api.userId,
    expiresAt: new Date(Date.now() - 1),
  });
  const res = await new PageClient(api).get(`/signin/link?token=${token}`);
  expect(res.statusCode).toBe(400);
  expect(SIGN_IN_LINK_LIFETIME_MS).toBe(15 * 60 * 1000);
});

it('keeps only the digest of its token', async () => {
  const link = new URL(await issueSignInLink(api.storage, api.userId, 'http://localhost'));
  const token = link.searchParams.get('token') as string;
  expect(await api.storage.signInLinks.consume(token)).toBeNull();
  expect(await api.storage.signInLinks.consume(createHash('sha256').update(token).digest('hex'))).toBe(
    api.userId,
  );
});

it.each(['', 'short', `${'a'.repeat(43)}`])('refuses a made-up token %j', async (token) => {
  expect((await new PageClient(api).get(`/signin/link?token=${token}`)).statusCode).toBe(400);
});

describe('the request a sign-in interrupted', () => {
  const CONSENT = '/oauth/interaction/abc123';

  it('is resumed after the link: a consent that sent the browser to /signin comes back to that consent', async () => {
    const browser = new PageClient(api);
    const explained = await browser.get(`/signin?return_to=${encodeURIComponent(CONSENT)}`);
    expect(explained.statusCode).toBe(200);
    expect(explained.body).toContain('assistant serve --login-link');

    const link = pathOf(await issueSignInLink(api.storage, api.userId, 'http://localhost'));
    const signedIn = await browser.get(link);
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe(CONSENT);
    // Taken once: the next link goes to /profile again.
    const next = await browser.get(
      pathOf(await issueSignInLink(api.storage, api.userId, 'http://localhost')),
    );
    expect(next.headers.location).toBe('/profile');
  });

  it('is never a path off this server, whatever the browser sends back', async () => {
    const browser = new PageClient(api);
    browser.cookies.set('assistant_return_to', encodeURIComponent('//evil.example/x'));
    const link = pathOf(await issueSignInLink(api.storage, api.userId, 'http://localhost'));
    expect((await browser.get(link)).headers.location).toBe('/profile');
  });

  it('is not kept for a return_to that is not a path on this server', async () => {
    const browser = new PageClient(api);
    await browser.get(`/signin?return_to=${encodeURIComponent('https://evil.example/')}`);
    const link = pathOf(await issueSignInLink(api.storage, api.userId, 'http://localhost'));
    expect((await browser.get(link)).headers.location).toBe('/profile');
  });
});
