/**
 * A credential never outlives the token it came from (SECURITY.md B2): revoking a token revokes the tokens it
 * minted (`POST /tokens`), the devices paired with the codes it made (`POST /pairing`, then a claim) and the codes
 * still unclaimed, and theirs in turn, at once (also where a descendant's verification was cached). On SQLite
 * and PostgreSQL.
 */
import type {
  ClaimedDevice,
  CreatedPairingCode,
  CreatedToken,
  Device,
  ListEnvelope,
} from '@assistant/contracts';
import type { Dialect } from '@assistant/storage';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { PageClient } from '../../testing/page-client';

describe.each<Dialect>(['sqlite', 'postgres'])('token lineage on %s', (dialect) => {
  let api: InProcessApp;
  beforeAll(async () => {
    api = await startInProcessApp({ dialect });
  });
  afterAll(() => api?.close());

  const MANAGER = ['write:account', 'read:account'] as const;

  /** A token minted over the API by `parent`. */
  async function mint(parent: string, name: string): Promise<CreatedToken> {
    const res = await api.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      token: parent,
      payload: { name, scopes: MANAGER },
    });
    expect(res.statusCode).toBe(201);
    return res.json<CreatedToken>();
  }

  async function createCode(token: string): Promise<CreatedPairingCode> {
    const res = await api.inject({ method: 'POST', url: '/api/v1/pairing', token });
    expect(res.statusCode).toBe(201);
    return res.json<CreatedPairingCode>();
  }

  const claim = (code: string) =>
    api.inject({
      method: 'POST',
      url: '/api/v1/pairing/claim',
      token: null,
      payload: { code, device_name: 'Ada’s phone' },
    });

  /** A device paired with a code that `token` made. */
  async function pairedBy(token: string): Promise<ClaimedDevice> {
    const res = await claim((await createCode(token)).code);
    expect(res.statusCode).toBe(201);
    return res.json<ClaimedDevice>();
  }

  /** The status `GET /me` answers `token` with: 200 while it works, 401 once revoked. */
  const meWith = async (token: string) =>
    (await api.inject({ method: 'GET', url: '/api/v1/me', token })).statusCode;

  const revokeToken = (id: string) =>
    api.inject({ method: 'DELETE', url: `/api/v1/tokens/${id}` }).then((res) => res.statusCode);

  it('revoking a token revokes the tokens it minted, and theirs, even ones verified a moment before', async () => {
    const parent = await mint(api.token, 'parent');
    const child = await mint(parent.token, 'child');
    const grandchild = await mint(child.token, 'grandchild');
    const sibling = await mint(api.token, 'sibling');
    // Each used once, so that a verification is remembered (the self-hosted server keeps them 60 seconds).
    for (const token of [parent, child, grandchild, sibling]) expect(await meWith(token.token)).toBe(200);

    expect(await revokeToken(parent.id)).toBe(204);

    expect(await meWith(parent.token)).toBe(401);
    expect(await meWith(child.token)).toBe(401);
    expect(await meWith(grandchild.token)).toBe(401);
    expect(await meWith(sibling.token)).toBe(200);
    expect(await meWith(api.token)).toBe(200);
    const listed = await api.inject({ method: 'GET', url: '/api/v1/tokens?limit=100' });
    const ids = listed.json<ListEnvelope<CreatedToken>>().data.map((t) => t.id);
    expect(ids).toContain(sibling.id);
    expect(ids).not.toEqual(expect.arrayContaining([parent.id]));
    expect(ids.filter((id) => [child.id, grandchild.id].includes(id))).toEqual([]);
  });

  it('revoking a minted token leaves the token that minted it alone', async () => {
    const parent = await mint(api.token, 'parent');
    const child = await mint(parent.token, 'child');

    expect(await revokeToken(child.id)).toBe(204);

    expect(await meWith(child.token)).toBe(401);
    expect(await meWith(parent.token)).toBe(200);
  });

  it('revoking a token unpairs the devices paired with its codes, and those of the tokens it minted', async () => {
    const parent = await mint(api.token, 'parent');
    const child = await mint(parent.token, 'child');
    const phone = await pairedBy(parent.token);
    const childsPhone = await pairedBy(child.token);
    const ownersPhone = await pairedBy(api.token);
    for (const device of [phone, childsPhone, ownersPhone]) expect(await meWith(device.token)).toBe(200);

    expect(await revokeToken(parent.id)).toBe(204);

    expect(await meWith(phone.token)).toBe(401);
    expect(await meWith(childsPhone.token)).toBe(401);
    expect(await meWith(ownersPhone.token)).toBe(200);
    const devices = await api.inject({ method: 'GET', url: '/api/v1/devices?limit=100' });
    const ids = devices.json<ListEnvelope<Device>>().data.map((d) => d.id);
    expect(ids).toContain(ownersPhone.device.id);
    expect(ids).not.toContain(phone.device.id);
    expect(ids).not.toContain(childsPhone.device.id);
  });

  it('a code made by a token revoked since can no longer be claimed', async () => {
    const parent = await mint(api.token, 'parent');
    const { code } = await createCode(parent.token);

    expect(await revokeToken(parent.id)).toBe(204);

    expect((await claim(code)).statusCode).toBe(422);
  });

  it('revoking a token on /profile revokes its lineage too', async () => {
    const parent = await mint(api.token, 'parent');
    const child = await mint(parent.token, 'child');
    const phone = await pairedBy(child.token);
    const browser = new PageClient(api);
    await browser.signInAs(api.userId);
    await browser.get('/profile');

    expect((await browser.post(`/profile/tokens/${parent.id}/revoke`)).statusCode).toBe(303);

    expect(await meWith(child.token)).toBe(401);
    expect(await meWith(phone.token)).toBe(401);
  });
});
