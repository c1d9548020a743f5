/**
 * Connections by form on /profile, against the real Dovecot of the test machine (`tools/workspace/services/
 * mail.sh`, alice/secret on 127.0.0.1:10143): a form per provider drawn from its schemas, Test with the remote
 * reason, save, edit, make default, remove; the secrets never in a page; another account's connection not found;
 * a signed-out browser sent to sign in; a form without the session's CSRF token refused; and on the hosted service
 * the same refusal of private addresses as the API's.
 */
import { ALL_SCOPES } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../../testing/in-process-app';
import { PageClient } from '../../../testing/page-client';
import { createAccount } from '../../accounts/create-account';
import { SecretBox } from '../secret-box';

const PASSWORD = 'secret';
const WRONG = 'wrong-pw-8d1e';
const NEW_IMAP = '/profile/connections/new?family=email&provider=imap';
const CREATE_IMAP = '/profile/connections?family=email&provider=imap';

/** The IMAP form's fields as a browser sends them for alice's mailbox. */
const alice = (password: string, extra: Record<string, string> = {}) => ({
  name: 'Personal',
  setting_imap_host: '127.0.0.1',
  setting_imap_port: '10143',
  setting_smtp_host: '127.0.0.1',
  setting_smtp_port: '10025',
  setting_username: 'alice',
  setting_from_address: 'alice@example.test',
  secret_password: password,
  intent: 'save',
  ...extra,
});

let api: InProcessApp;
beforeAll(async () => {
  api = await startInProcessApp();
});
afterAll(() => api?.close());

async function signedIn(userId = api.userId): Promise<PageClient> {
  const browser = new PageClient(api);
  await browser.signInAs(userId);
  await browser.get('/profile');
  return browser;
}

const mine = () => api.storage.connections.list(api.userId);

/** A page's markup with its layout whitespace taken out, to match against. */
const flat = (body: string) =>
  body.replace(/\s+/g, ' ').replace(/\s+>/g, '>').replace(/>\s+</g, '><').replace(/>\s+/g, '>');

describe('the form of a provider', () => {
  it("is linked from /profile for every provider offered, and drawn from the provider's schemas", async () => {
    const browser = await signedIn();
    const profile = await browser.get('/profile');
    expect(profile.body).toContain(`href="${NEW_IMAP.replace(/&/g, '&amp;')}"`);
    expect(profile.body).toContain('href="/profile/connections/new?family=calendar&amp;provider=caldav"');
    const res = await browser.get(NEW_IMAP);
    expect(res.statusCode).toBe(200);
    const form = { body: flat(res.body) };
    // Labels, required settings, defaults, checkboxes, help, and the secret as an empty password field.
    expect(form.body).toContain('<label for="field-setting_imap_host">IMAP host</label>');
    expect(form.body).toMatch(
      /<input type="text" value="" id="field-setting_imap_host" name="setting_imap_host" required/,
    );
    expect(form.body).toMatch(/<input type="number" value="993" id="field-setting_imap_port"/);
    expect(form.body).toMatch(/name="setting_imap_tls" value="on" checked/);
    expect(form.body).toMatch(/<input type="email" value="" id="field-setting_from_address"/);
    expect(form.body).toMatch(
      /<input type="password" autocomplete="new-password" id="field-secret_password" name="secret_password" required/,
    );
    expect(form.body).toContain('The password, or an app password. Stored encrypted; never shown again.');
    expect(form.body).toContain('name="intent" value="test"');
    expect(form.body).not.toContain('<script');
  });

  it('is a not-found page for a provider this server does not offer', async () => {
    const browser = await signedIn();
    expect((await browser.get('/profile/connections/new?family=email&provider=pop3')).statusCode).toBe(404);
    expect((await browser.get('/profile/connections/new?family=files&provider=local')).statusCode).toBe(200);
  });
});

describe('adding a mailbox by form', () => {
  it("shows the remote server's reason for a wrong password when tested, saves nothing, and never shows the password", async () => {
    const browser = await signedIn();
    await browser.get(NEW_IMAP);
    const tested = await browser.post(CREATE_IMAP, alice(WRONG, { intent: 'test' }));
    expect(tested.statusCode).toBe(422);
    expect(flat(tested.body)).toContain(
      'role="alert"><p>The connection was tried and refused: IMAP login to 127.0.0.1 failed: Authentication failed.',
    );
    expect(tested.body).not.toContain(WRONG);
    // What was typed stays, but the secret.
    expect(tested.body).toContain('value="alice@example.test"');
    expect(await mine()).toEqual([]);
  });

  it('tests a working mailbox without saving it, then saves it as the default email connection', async () => {
    const browser = await signedIn();
    await browser.get(NEW_IMAP);
    const tested = await browser.post(CREATE_IMAP, alice(PASSWORD, { intent: 'test' }));
    expect(tested.statusCode).toBe(200);
    expect(tested.body).toContain('The connection works');
    expect(tested.body).not.toContain(`value="${PASSWORD}"`);
    expect(await mine()).toEqual([]);

    const saved = await browser.post(CREATE_IMAP, alice(PASSWORD));
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/profile#connections');
    const [stored] = await mine();
    expect(stored).toMatchObject({ name: 'Personal', isDefault: true, status: 'ok', provider: 'imap' });
    expect(stored.settings).toMatchObject({ imap_port: 10143, imap_tls: false, smtp_tls: false });
    const profile = await browser.get('/profile');
    expect(flat(profile.body)).toMatch(
      /<td>Personal<\/td>\s*<td>email<\/td>\s*<td>imap<\/td>\s*<td>Working<\/td>\s*<td>Default<\/td>/,
    );
  });

  it('refuses a second connection of the family by the same name, with the field named', async () => {
    const browser = await signedIn();
    await browser.get(NEW_IMAP);
    const taken = await browser.post(CREATE_IMAP, alice(PASSWORD, { name: 'personal' }));
    expect(taken.statusCode).toBe(422);
    expect(taken.body).toContain('you already have a email connection named personal');
  });

  it('adds a second one, makes it the default, and each is edited without its password shown', async () => {
    const browser = await signedIn();
    await browser.get(NEW_IMAP);
    expect((await browser.post(CREATE_IMAP, alice(PASSWORD, { name: 'Work' }))).statusCode).toBe(303);
    const work = (await mine()).find((c) => c.name === 'Work')!;
    expect(work.isDefault).toBe(false);

    await browser.get('/profile');
    expect((await browser.post(`/profile/connections/${work.id}/default`)).statusCode).toBe(303);
    expect((await mine()).map((c) => [c.name, c.isDefault])).toEqual([
      ['Personal', false],
      ['Work', true],
    ]);

    const edit = await browser.get(`/profile/connections/${work.id}`);
    expect(edit.statusCode).toBe(200);
    expect(edit.body).toContain('value="10143"');
    expect(edit.body).toContain('Leave it empty to keep the stored one');
    expect(edit.body).not.toContain(`value="${PASSWORD}"`);
    // As whom it logs in changes: the password is needed again, as on the API.
    const moved = await browser.post(
      `/profile/connections/${work.id}`,
      alice('', { name: 'Work', setting_username: 'bob' }),
    );
    expect(moved.statusCode).toBe(422);
    expect(moved.body).toContain('changes where or as whom the connection logs in');
    // A rename and a new From address keep the stored password, and are saved.
    const renamed = await browser.post(
      `/profile/connections/${work.id}`,
      alice('', { name: 'Office', setting_from_address: 'alice+work@example.test' }),
    );
    expect(renamed.statusCode).toBe(303);
    expect(await api.storage.connections.get(api.userId, work.id)).toMatchObject({
      name: 'Office',
      settings: expect.objectContaining({ from_address: 'alice+work@example.test' }),
    });
  });

  it('tests a stored connection as it is, and records how it went', async () => {
    const browser = await signedIn();
    const office = (await mine()).find((c) => c.name === 'Office')!;
    await browser.get(`/profile/connections/${office.id}`);
    const tested = await browser.post(
      `/profile/connections/${office.id}`,
      alice('', { name: 'Office', setting_from_address: 'alice+work@example.test', intent: 'test' }),
    );
    expect(tested.statusCode).toBe(200);
    expect(tested.body).toContain('The connection works');
    const wrong = await browser.post(
      `/profile/connections/${office.id}`,
      alice(WRONG, { name: 'Office', intent: 'test' }),
    );
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).not.toContain(WRONG);
    // A try with another password is no verdict on the stored one.
    expect((await api.storage.connections.get(api.userId, office.id))?.status).toBe('ok');
  });
});

describe('a stored connection that stopped working', () => {
  it('is tried as it is by Test: failing, with the remote reason, on the form and on /profile; working again once it works', async () => {
    const browser = await signedIn();
    const office = (await mine()).find((c) => c.name === 'Office')!;
    // The password changed on the mail server since it was stored: stands in by storing another one.
    const box = api.app.get(SecretBox);
    await api.storage.connections.update(api.userId, office.id, {
      sealedSecrets: box.seal({ password: WRONG }, api.userId),
    });
    await browser.get(`/profile/connections/${office.id}`);
    const stored = await api.storage.connections.get(api.userId, office.id);
    const asItIs = () =>
      browser.post(`/profile/connections/${office.id}`, {
        ...alice('', { name: 'Office', intent: 'test' }),
        setting_from_address: String(stored!.settings.from_address),
      });
    const failing = await asItIs();
    expect(failing.statusCode).toBe(422);
    expect(await api.storage.connections.get(api.userId, office.id)).toMatchObject({
      status: 'error',
      lastError: expect.stringContaining('Authentication failed'),
    });
    expect(flat((await browser.get('/profile')).body)).toMatch(
      /<td>Office<\/td><td>email<\/td><td>imap<\/td><td><span class="error">Failing<\/span>: IMAP login to 127.0.0.1 failed: Authentication failed./,
    );

    await api.storage.connections.update(api.userId, office.id, {
      sealedSecrets: box.seal({ password: PASSWORD }, api.userId),
    });
    await browser.get(`/profile/connections/${office.id}`);
    expect((await asItIs()).statusCode).toBe(200);
    expect(await api.storage.connections.get(api.userId, office.id)).toMatchObject({
      status: 'ok',
      lastError: null,
    });
  });
});

describe("another account's connection", () => {
  it('is a not-found page to every form, and its secrets stay out of every page', async () => {
    const other = await createAccount(api.storage, { email: 'forms-other@example.test', scopes: ALL_SCOPES });
    const browser = await signedIn(other.user_id);
    const [theirs] = await mine();
    const pages = [
      await browser.get(`/profile/connections/${theirs.id}`),
      await browser.post(`/profile/connections/${theirs.id}`, alice(PASSWORD, { name: 'mine now' })),
      await browser.post(`/profile/connections/${theirs.id}`, alice('', { intent: 'test' })),
      await browser.post(`/profile/connections/${theirs.id}/default`),
      await browser.post(`/profile/connections/${theirs.id}/remove`),
    ];
    expect(pages.map((p) => p.statusCode)).toEqual([404, 404, 404, 404, 404]);
    expect(await api.storage.connections.get(api.userId, theirs.id)).toMatchObject({ name: theirs.name });
    const profile = await browser.get('/profile');
    expect(profile.body).not.toContain(theirs.id);
  });
});

describe('a browser without a session or without the form', () => {
  it('is sent to sign in from a connection form, and back to it after', async () => {
    const res = await new PageClient(api).get(NEW_IMAP);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/signin?return_to=${encodeURIComponent(NEW_IMAP)}`);
    const post = await new PageClient(api).post(CREATE_IMAP, alice(PASSWORD, { name: 'Anon' }), null);
    expect([303, 403]).toContain(post.statusCode);
  });

  it('is refused without the CSRF token of its session: nothing is added, made default or removed', async () => {
    const browser = await signedIn();
    const before = await mine();
    const forged = [
      await browser.post(CREATE_IMAP, alice(PASSWORD, { name: 'Forged' }), null),
      await browser.post(CREATE_IMAP, alice(PASSWORD, { name: 'Forged' }), 'not-the-token'),
      await browser.post(`/profile/connections/${before[0].id}/default`, {}, null),
      await browser.post(`/profile/connections/${before[0].id}/remove`, {}, null),
    ];
    expect(forged.map((p) => p.statusCode)).toEqual([403, 403, 403, 403]);
    expect(await mine()).toEqual(before);
  });

  it('never sees a stored secret in any page of the journey', async () => {
    const browser = await signedIn();
    const bodies = [
      await browser.get('/profile'),
      ...(await Promise.all((await mine()).map((c) => browser.get(`/profile/connections/${c.id}`)))),
    ];
    for (const page of bodies) expect(page.body).not.toContain(`"${PASSWORD}"`);
    expect(JSON.stringify(api.logs())).not.toContain(WRONG);
  });
});

describe('on the hosted service', () => {
  let hosted: InProcessApp;
  beforeAll(async () => {
    hosted = await startInProcessApp({ config: { deployment: 'hosted' } });
  });
  afterAll(() => hosted?.close());

  it("refuses a mailbox on the service's own network through the form as through the API", async () => {
    const browser = new PageClient(hosted);
    await browser.signInAs(hosted.userId);
    await browser.get(NEW_IMAP);
    const refused = await browser.post(CREATE_IMAP, alice(PASSWORD));
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toMatch(/The connection was tried and refused: [^<]*(private|local|loopback)/i);
    expect(await hosted.storage.connections.list(hosted.userId)).toEqual([]);
    // A folder of the server is no provider of the hosted service: no form, no link.
    expect((await browser.get('/profile/connections/new?family=files&provider=local')).statusCode).toBe(404);
    expect((await browser.get('/profile')).body).not.toContain('provider=local');
  });
});
