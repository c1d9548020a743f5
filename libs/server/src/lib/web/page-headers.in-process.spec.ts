/**
 * Every page, whatever it says (a form, a profile, a refusal, an error), forbids framing by other sites
 * (`frame-ancestors 'none'` and `X-Frame-Options: DENY`), runs no script, and is kept by no cache.
 */
import type { LightMyRequestResponse } from 'fastify';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';

let hosted: InProcessApp;
let selfHosted: InProcessApp;
beforeAll(async () => {
  [hosted, selfHosted] = await Promise.all([
    startInProcessApp({ config: { deployment: 'hosted' } }),
    startInProcessApp(),
  ]);
});
afterAll(() => Promise.all([hosted?.close(), selfHosted?.close()]));

type PageVisit = (api: InProcessApp) => Promise<LightMyRequestResponse>;

async function signedIn(api: InProcessApp): Promise<PageClient> {
  const browser = new PageClient(api);
  await browser.signInAs(api.userId);
  await browser.get('/profile');
  return browser;
}

const PAGES: [string, 'hosted' | 'self-hosted', PageVisit][] = [
  ['the sign-in form', 'hosted', (api) => new PageClient(api).get('/signin')],
  ['the sign-up form', 'hosted', (api) => new PageClient(api).get('/signup')],
  [
    'a refused sign-in',
    'hosted',
    async (api) => {
      const browser = new PageClient(api);
      await browser.get('/signin');
      return browser.post('/signin', { email: 'nobody@example.test', password: 'wrong password' });
    },
  ],
  ['the link explanation', 'self-hosted', (api) => new PageClient(api).get('/signin')],
  ['the 404 of /signup', 'self-hosted', (api) => new PageClient(api).get('/signup')],
  ['a dead sign-in link', 'self-hosted', (api) => new PageClient(api).get('/signin/link?token=nope')],
  ['/profile', 'self-hosted', async (api) => (await signedIn(api)).get('/profile')],
  [
    'a new token, shown once',
    'self-hosted',
    async (api) =>
      (await signedIn(api)).post('/profile/tokens', { name: 'n', scope: 'read:account', expiry: '' }),
  ],
  ['a refused form (CSRF)', 'self-hosted', async (api) => (await signedIn(api)).post('/signout', {}, null)],
  [
    'a 404 page for an item',
    'self-hosted',
    async (api) => (await signedIn(api)).post('/profile/tokens/tok_00000000000000000000000000/revoke'),
  ],
];

describe.each(PAGES)('%s', (_name, deployment, visit) => {
  let res: LightMyRequestResponse;
  beforeAll(async () => {
    res = await visit(deployment === 'hosted' ? hosted : selfHosted);
  });

  it('is HTML that no other site may frame', () => {
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('allows nothing but its own stylesheet: no script, nothing from elsewhere', () => {
    const policy = String(res.headers['content-security-policy']);
    expect(policy).toMatch(/(^|; )default-src 'none'(;|$)/);
    expect(policy).toMatch(/(^|; )style-src 'self'(;|$)/);
    expect(policy).not.toMatch(/script-src|unsafe-inline/);
    expect(res.body).not.toMatch(/<script|style="|\son[a-z]+=/i);
  });

  it('is kept by no cache and sends no Referer', () => {
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });
});

it('the stylesheet is served by the server itself, as CSS', async () => {
  const res = await new PageClient(selfHosted).get('/assets/pages.css');
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
  expect(res.body).toContain('font:');
});
