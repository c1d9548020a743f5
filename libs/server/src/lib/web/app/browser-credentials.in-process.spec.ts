/**
 * The web app's credentials on /api/v1: a signed-in session's HttpOnly cookie, or a paired browser's device
 * cookie, each good only with its CSRF token in `X-CSRF-Token` and only from this site; a bearer token decides
 * alone whenever there is one. And /app, /app/pair and /app/signout as pages.
 */
import { ALL_SCOPES } from '@assistant/contracts';
import { TokenService } from '@assistant/auth';
import { startInProcessApp, type InProcessApp } from '../../../testing/in-process-app';
import { PageClient } from '../../../testing/page-client';
import { createAccount } from '../../accounts/create-account';
import { CSRF_HEADER } from '@assistant/web';

let api: InProcessApp;
let tokens: TokenService;
let other: { userId: string; token: string };

beforeAll(async () => {
  api = await startInProcessApp();
  tokens = api.app.get(TokenService);
  const account = await createAccount(api.storage, { email: 'other@example.test', scopes: ALL_SCOPES });
  other = { userId: account.user_id, token: account.token };
});
afterAll(() => api?.close());

/** A browser signed in as the test user, on /app: its cookie and the CSRF token of the app's page. */
async function signedIn(): Promise<{ browser: PageClient; csrf: string }> {
  const browser = new PageClient(api);
  await browser.signInAs(api.userId);
  const page = await browser.get('/app');
  expect(page.statusCode).toBe(200);
  return { browser, csrf: csrfOf(page.body) };
}

function csrfOf(body: string): string {
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(body)?.[1];
  if (!csrf) throw new Error('no CSRF token on the page');
  return csrf;
}

/** A call to /api/v1 as the app's script makes it: the browser's cookies, and the CSRF header unless left out. */
function call(
  browser: PageClient,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  headers: Record<string, string> = {},
  payload?: object,
) {
  const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return api.inject({
    method,
    url: `/api/v1${path}`,
    token: null,
    headers: { cookie, ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload: JSON.stringify(payload) } : {}),
  });
}

describe('a signed-in browser on /api/v1', () => {
  it('acts as its account with the session cookie and the CSRF header, with every scope but write:account', async () => {
    const { browser, csrf } = await signedIn();
    const me = await call(browser, 'GET', '/me', { [CSRF_HEADER]: csrf });
    expect(me.statusCode).toBe(200);
    const token = me.json<{ id: string; token: { scopes: string[] } }>();
    expect(token.id).toBe(api.userId);
    expect(token.token.scopes).not.toContain('write:account');
    expect(token.token.scopes).toContain('write:memories');
    // Narrower than the account: managing tokens and devices stays on /profile.
    expect((await call(browser, 'GET', '/tokens', { [CSRF_HEADER]: csrf })).statusCode).toBe(403);
    expect((await call(browser, 'POST', '/pairing', { [CSRF_HEADER]: csrf }, {})).statusCode).toBe(403);
  });

  it('is worth nothing without the CSRF header, with a wrong one, or from another site: 401', async () => {
    const { browser, csrf } = await signedIn();
    const { csrf: otherSessionsCsrf } = await signedIn();
    expect((await call(browser, 'GET', '/me')).statusCode).toBe(401);
    expect((await call(browser, 'GET', '/me', { [CSRF_HEADER]: otherSessionsCsrf })).statusCode).toBe(401);
    expect(
      (await call(browser, 'GET', '/me', { [CSRF_HEADER]: csrf, 'sec-fetch-site': 'cross-site' })).statusCode,
    ).toBe(401);
    expect(
      (await call(browser, 'GET', '/me', { [CSRF_HEADER]: csrf, origin: 'https://evil.example' })).statusCode,
    ).toBe(401);
    const created = await call(browser, 'POST', '/memories', {}, { content: 'planted by another site' });
    expect(created.statusCode).toBe(401);
    const listed = await api.inject({ method: 'GET', url: '/api/v1/memories?q=planted' });
    expect(listed.json<{ data: unknown[] }>().data).toEqual([]);
  });

  it('is signed out with the session: the same cookie and CSRF token get 401 after /app/signout', async () => {
    const { browser, csrf } = await signedIn();
    const cookies = new Map(browser.cookies);
    expect((await browser.post('/app/signout', {}, csrf)).statusCode).toBe(303);
    const stale = new PageClient(api);
    for (const [name, value] of cookies) stale.cookies.set(name, value);
    expect((await call(stale, 'GET', '/me', { [CSRF_HEADER]: csrf })).statusCode).toBe(401);
  });

  it("gets 404 for another account's discussion, as a token does", async () => {
    const { browser, csrf } = await signedIn();
    const theirs = await api.inject({
      method: 'POST',
      url: '/api/v1/discussions',
      token: other.token,
      payload: { title: 'Private' },
    });
    const id = theirs.json<{ id: string }>().id;
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await call(
        browser,
        method,
        `/discussions/${id}`,
        { [CSRF_HEADER]: csrf },
        method === 'PATCH' ? { title: 'Mine now' } : undefined,
      );
      expect(res.statusCode).toBe(404);
    }
    const listed = await call(browser, 'GET', '/discussions', { [CSRF_HEADER]: csrf });
    expect(listed.json<{ data: { id: string }[] }>().data.map((d) => d.id)).not.toContain(id);
  });

  it('leaves a bearer token to decide alone: a wrong one is 401 even beside a signed-in cookie', async () => {
    const { browser, csrf } = await signedIn();
    const res = await call(browser, 'GET', '/me', {
      [CSRF_HEADER]: csrf,
      authorization: 'Bearer asp_not_a_token',
    });
    expect(res.statusCode).toBe(401);
    const narrow = await api.issueToken(['read:account']);
    const narrowed = await call(browser, 'GET', '/memories', {
      [CSRF_HEADER]: csrf,
      authorization: `Bearer ${narrow}`,
    });
    expect(narrowed.statusCode).toBe(403);
  });
});

describe('/app as a page', () => {
  it('sends a signed-out browser to sign in, and back to /app after', async () => {
    const res = await new PageClient(api).get('/app');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/signin?return_to=%2Fapp');
  });

  it('allows its own script only: no inline script, nothing from elsewhere, no framing', async () => {
    const { browser } = await signedIn();
    const page = await browser.get('/app');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc="\/app\/app\.js")/);
    expect(page.body).not.toMatch(/https?:\/\//);
  });
});

describe('installing the app', () => {
  // The script is compiled by @assistant/web's build (tsconfig.app-client.json) beside the built package that this
  // server loads, and read from there at run time: a 404 here means the package was built without it.
  it("serves its script, as @assistant/web's build compiled it", async () => {
    const script = await api.inject({ method: 'GET', url: '/app/app.js', token: null });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).toContain("headers.set('x-csrf-token', CSRF)");
  });

  it('has a manifest whose icons are served, as PNGs of their declared sizes and as SVG', async () => {
    const manifest = await api.inject({ method: 'GET', url: '/app/manifest.webmanifest', token: null });
    expect(manifest.statusCode).toBe(200);
    const { start_url, display, icons } = manifest.json<{
      start_url: string;
      display: string;
      icons: { src: string; sizes: string; type: string }[];
    }>();
    expect({ start_url, display }).toEqual({ start_url: '/app', display: 'standalone' });
    expect(icons.map((icon) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of icons) {
      const res = await api.inject({ method: 'GET', url: icon.src, token: null });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(icon.type);
      if (icon.type !== 'image/png') continue;
      const png = res.rawPayload;
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(icon.sizes);
    }
  });
});

describe('a browser paired on /app/pair', () => {
  async function paired(name: string) {
    const created = await api.inject({ method: 'POST', url: '/api/v1/pairing', payload: {} });
    const { code } = created.json<{ code: string }>();
    const phone = new PageClient(api);
    await phone.get('/app/pair');
    const claimed = await phone.post('/app/pair', { code, device_name: name });
    expect(claimed.statusCode).toBe(303);
    expect(claimed.headers.location).toBe('/app');
    const setCookie = PageClient.setCookies(claimed).find((c) => c.startsWith('assistant_device='));
    const page = await phone.get('/app');
    expect(page.statusCode).toBe(200);
    return { phone, csrf: csrfOf(page.body), setCookie: setCookie ?? '', code };
  }

  it('keeps its device token in an HttpOnly, SameSite=Strict cookie, and calls the API with it and its CSRF token', async () => {
    const { phone, csrf, setCookie } = await paired('Kitchen phone');
    expect(setCookie).toMatch(
      /^assistant_device=asd_[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    const me = await call(phone, 'GET', '/me', { [CSRF_HEADER]: csrf });
    expect(me.statusCode).toBe(200);
    expect(me.json<{ token: { kind: string } }>().token.kind).toBe('device');
    // The page never holds the token itself.
    expect((await phone.get('/app')).body).not.toContain('asd_');
    expect((await call(phone, 'GET', '/me')).statusCode).toBe(401);
    expect((await call(phone, 'GET', '/devices', { [CSRF_HEADER]: csrf })).statusCode).toBe(403);
  });

  it('is signed out at once when the device is revoked: 401 on the API, and /app sends it to pair again', async () => {
    const { phone, csrf } = await paired('Revoked phone');
    const devices = await tokens.list(api.userId, 'device', { limit: 100 });
    const device = devices.items.find((d) => d.name === 'Revoked phone')!;
    const owner = new PageClient(api);
    await owner.signInAs(api.userId);
    await owner.get('/profile');
    expect((await owner.post(`/profile/devices/${device.id}/revoke`)).statusCode).toBe(303);

    expect((await call(phone, 'GET', '/me', { [CSRF_HEADER]: csrf })).statusCode).toBe(401);
    const page = await phone.get('/app');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/app/pair?signed_out=1');
    expect(phone.cookies.has('assistant_device')).toBe(false);
  });

  it('refuses a claim without the CSRF token, and the code stays unclaimed', async () => {
    const created = await api.inject({ method: 'POST', url: '/api/v1/pairing', payload: {} });
    const { code, id } = created.json<{ code: string; id: string }>();
    const phone = new PageClient(api);
    await phone.get('/app/pair');
    const refused = await phone.post('/app/pair', { code, device_name: 'Forged' }, null);
    expect(refused.statusCode).toBe(403);
    expect(phone.cookies.has('assistant_device')).toBe(false);
    const status = await api.inject({ method: 'GET', url: `/api/v1/pairing/${id}` });
    expect(status.json<{ status: string }>().status).toBe('waiting');
  });

  it('answers a wrong code on the page, with no cookie', async () => {
    const phone = new PageClient(api);
    await phone.get('/app/pair');
    const res = await phone.post('/app/pair', { code: 'AAAA-AAAA', device_name: 'Guess' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('That code cannot be used');
    expect(phone.cookies.has('assistant_device')).toBe(false);
  });

  it('unpairs itself on /app/signout: its token is revoked', async () => {
    const { phone, csrf } = await paired('Leaving phone');
    const cookie = phone.cookies.get('assistant_device')!;
    expect((await phone.post('/app/signout', {}, csrf)).statusCode).toBe(303);
    expect((await api.inject({ method: 'GET', url: '/api/v1/me', token: cookie })).statusCode).toBe(401);
  });
});
