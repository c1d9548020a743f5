/**
 * /profile: only for a signed-in browser; personal tokens created (shown once, usable on the API) and revoked;
 * paired devices and connections listed and revoked or removed; another account's items are "not found".
 */
import { ALL_SCOPES } from '@assistant/contracts';
import { TokenService } from '@assistant/auth';
import { startInProcessApp, type InProcessApp } from '../../../testing/in-process-app';
import { PageClient } from '../../../testing/page-client';
import { createAccount } from '../../accounts/create-account';
import { ConnectionsService } from '../../tools/connections.service';

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

async function owner(): Promise<PageClient> {
  const browser = new PageClient(api);
  await browser.signInAs(api.userId);
  await browser.get('/profile');
  return browser;
}

const me = (token: string) => api.inject({ method: 'GET', url: '/api/v1/me', token });

describe('signed out', () => {
  it('GET /profile sends the browser to sign in, and back to /profile after', async () => {
    const res = await new PageClient(api).get('/profile');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/signin?return_to=%2Fprofile');
  });

  it('a page left open after signing out changes nothing: its form is refused', async () => {
    const browser = await owner();
    const staleCsrf = browser.csrf;
    await browser.post('/signout');
    const res = await browser.post(
      '/profile/tokens',
      { name: 'after sign-out', scope: 'read:account', expiry: '' },
      staleCsrf,
    );
    expect(res.statusCode).toBe(403);
    const names = (await tokens.list(api.userId, 'personal', { limit: 100 })).items.map((t) => t.name);
    expect(names).not.toContain('after sign-out');
  });
});

it('shows the account: email, display name, deployment', async () => {
  const page = await (await owner()).get('/profile');
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('tester@example.test');
  expect(page.body).toContain('Self-hosted server');
});

describe('personal tokens', () => {
  it('are created with a name, scopes and an expiry, shown once, and work on the API with those scopes', async () => {
    const browser = await owner();
    const created = await browser.post('/profile/tokens', {
      name: 'Backup script',
      scope: ['read:account', 'read:memories'],
      expiry: '30',
    });

    expect(created.statusCode).toBe(201);
    const secret = /value="(asp_[A-Za-z0-9]+)"/.exec(created.body)?.[1] as string;
    expect(secret).toBeDefined();
    expect(created.body).toContain('shown this once');

    const res = await me(secret);
    expect(res.statusCode).toBe(200);
    const token = res.json<{ token: { scopes: string[]; expires_at: string } }>().token;
    expect(token.scopes.sort()).toEqual(['read:account', 'read:memories']);
    const days = (Date.parse(token.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);

    const profile = await browser.get('/profile');
    expect(profile.body).toContain('Backup script');
    expect(profile.body).toContain(secret.slice(0, 8));
    expect(profile.body).not.toContain(secret);
  });

  it('are revoked from the page: the next API call with it gets 401', async () => {
    const browser = await owner();
    const secret = /value="(asp_[A-Za-z0-9]+)"/.exec(
      (await browser.post('/profile/tokens', { name: 'Short-lived', scope: 'read:account', expiry: '' }))
        .body,
    )?.[1] as string;
    expect((await me(secret)).statusCode).toBe(200);
    const id = (await tokens.list(api.userId, 'personal', { limit: 100 })).items.find(
      (t) => t.name === 'Short-lived',
    )?.id as string;

    await browser.get('/profile');
    const revoked = await browser.post(`/profile/tokens/${id}/revoke`);

    expect(revoked.statusCode).toBe(303);
    expect((await me(secret)).statusCode).toBe(401);
    expect((await browser.get('/profile')).body).not.toContain('Short-lived');
  });

  it.each([
    [{ name: '', scope: 'read:account', expiry: '' }, 'Give the token a name'],
    [{ name: 'No scopes', expiry: '' }, 'Choose at least one thing the token may do.'],
    [{ name: 'Odd scope', scope: 'admin:everything', expiry: '' }, 'Choose the scopes from the list.'],
    [{ name: 'Odd expiry', scope: 'read:account', expiry: '9999' }, 'Choose when the token expires'],
  ])('refuses %j with a message and creates nothing', async (fields, message) => {
    const browser = await owner();
    const before = (await tokens.list(api.userId, 'personal', { limit: 100 })).items.length;
    const res = await browser.post('/profile/tokens', fields);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(message);
    expect((await tokens.list(api.userId, 'personal', { limit: 100 })).items.length).toBe(before);
  });

  it('shows names as text, never as markup', async () => {
    const browser = await owner();
    await browser.post('/profile/tokens', {
      name: '<script>alert("x")</script>',
      scope: 'read:account',
      expiry: '',
    });
    const page = await browser.get('/profile');
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  it('of another account cannot be revoked: a 404 page, and the token keeps working', async () => {
    const browser = await owner();
    const theirs = (await tokens.list(other.userId, 'personal', { limit: 1 })).items[0];

    const res = await browser.post(`/profile/tokens/${theirs.id}/revoke`);

    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect((await me(other.token)).statusCode).toBe(200);
  });
});

describe('paired devices', () => {
  const pair = (userId: string, name: string) =>
    tokens.issue({ userId, kind: 'device', name, scopes: ['read:account'] });

  it('are listed and revoked: the device token then gets 401', async () => {
    const phone = await pair(api.userId, 'Ada’s phone');
    const browser = await owner();
    expect((await browser.get('/profile')).body).toContain('Ada’s phone');

    const res = await browser.post(`/profile/devices/${phone.record.id}/revoke`);

    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/profile#devices');
    expect((await me(phone.secret)).statusCode).toBe(401);
  });

  it('of another account cannot be revoked: a 404 page, and the device keeps working', async () => {
    const theirs = await pair(other.userId, 'Their phone');
    const browser = await owner();
    expect((await browser.get('/profile')).body).not.toContain('Their phone');

    const res = await browser.post(`/profile/devices/${theirs.record.id}/revoke`);

    expect(res.statusCode).toBe(404);
    expect((await me(theirs.secret)).statusCode).toBe(200);
  });

  it('a personal token cannot be revoked as a device', async () => {
    const personal = await tokens.issue({
      userId: api.userId,
      kind: 'personal',
      name: 'p',
      scopes: ['read:account'],
    });
    const res = await (await owner()).post(`/profile/devices/${personal.record.id}/revoke`);
    expect(res.statusCode).toBe(404);
    expect((await me(personal.secret)).statusCode).toBe(200);
  });
});

describe('connections', () => {
  const connect = (userId: string, name: string) =>
    api.storage.connections.create(userId, {
      family: 'home',
      provider: 'homeassistant',
      name,
      settings: { url: 'http://ha.local:8123' },
      sealedSecrets: 'sealed-secret-blob',
      status: 'error',
      lastError: 'connection refused',
    });

  it('are listed with name, family, provider and status, never their secrets, and removed', async () => {
    const connection = await connect(api.userId, 'Living room hub');
    const browser = await owner();
    const page = await browser.get('/profile');
    expect(page.body).toContain('Living room hub');
    expect(page.body).toContain('homeassistant');
    expect(page.body).toContain('connection refused');
    expect(page.body).not.toContain('sealed-secret-blob');

    const res = await browser.post(`/profile/connections/${connection.id}/remove`);

    expect(res.statusCode).toBe(303);
    expect(await api.storage.connections.get(api.userId, connection.id)).toBeNull();
  });

  it('of another account cannot be removed: a 404 page', async () => {
    const theirs = await connect(other.userId, 'Their hub');
    const res = await (await owner()).post(`/profile/connections/${theirs.id}/remove`);
    expect(res.statusCode).toBe(404);
    expect(await api.storage.connections.get(other.userId, theirs.id)).not.toBeNull();
  });

  it('built into the server are shown without a remove button, and cannot be removed', async () => {
    const browser = await owner();
    const page = await browser.get('/profile');
    expect(page.body).toContain('Built in');
    const builtIn = (await api.app.get(ConnectionsService).list(api.userId)).data.find((c) => c.built_in);
    expect(builtIn).toBeDefined();
    expect(page.body).not.toContain(`/profile/connections/${builtIn?.id}/remove`);

    const res = await browser.post(`/profile/connections/${builtIn?.id}/remove`);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('cannot be changed or removed');
  });
});
