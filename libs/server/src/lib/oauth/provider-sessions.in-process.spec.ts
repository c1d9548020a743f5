/**
 * The authorization server's browser session follows the pages' sign-in (B4): signing out or in ends it, and an
 * authorization request ends it unless it is the signed-in person's, before the provider decides anything. Its
 * sessions are records of the database and its cookie is the browser's, which is all these tests need.
 */
import { randomBytes } from 'node:crypto';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';
import { PROVIDER_SESSION_COOKIE } from '@assistant/server-kit';

let api: InProcessApp;
beforeEach(async () => {
  api = await startInProcessApp();
});
afterEach(() => api?.close());

/** A provider session of `accountId` in `browser`, as oidc-provider keeps one: a record, and its id in a cookie. */
async function providerSession(browser: PageClient, accountId: string): Promise<string> {
  const id = randomBytes(16).toString('base64url');
  await api.storage.oauth.upsert(
    'Session',
    id,
    { jti: id, uid: `uid-${id}`, accountId, kind: 'Session' },
    3600,
  );
  browser.cookies.set(PROVIDER_SESSION_COOKIE, id);
  return id;
}

const exists = async (id: string) => (await api.storage.oauth.find('Session', id)) !== null;
const AUTHORIZE = '/oauth/authorize?client_id=app&response_type=code&scope=read:memories';

it('signing out ends the authorization server’s session of the browser', async () => {
  const browser = new PageClient(api);
  await browser.signInAs(api.userId);
  const id = await providerSession(browser, api.userId);
  await browser.get('/profile');

  expect((await browser.post('/signout')).statusCode).toBe(303);

  expect(await exists(id)).toBe(false);
});

it('signing in ends the session the browser had, whoever it was of', async () => {
  const browser = new PageClient(api);
  const id = await providerSession(browser, 'usr_someone_else');

  await browser.signInAs(api.userId);

  expect(await exists(id)).toBe(false);
});

it('an authorization request ends a provider session of someone other than the signed-in person, and keeps theirs', async () => {
  const browser = new PageClient(api);
  await browser.signInAs(api.userId);
  const someoneElses = await providerSession(browser, 'usr_someone_else');
  await browser.get(AUTHORIZE);
  expect(await exists(someoneElses)).toBe(false);

  const own = await providerSession(browser, api.userId);
  await browser.get(AUTHORIZE);
  expect(await exists(own)).toBe(true);
});

it('signed out, an authorization request ends whatever provider session the browser holds', async () => {
  const browser = new PageClient(api);
  const id = await providerSession(browser, api.userId);

  await browser.get(AUTHORIZE);

  expect(await exists(id)).toBe(false);
});
