import {
  ALL_SCOPES,
  type ClaimedDevice,
  type CreatedPairingCode,
  type Device,
  type ListEnvelope,
  type Pairing,
  type Problem,
} from '@assistant/contracts';
import { generatePairingCode } from '@assistant/auth';
import { createAccount } from '../accounts/create-account';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

describe('phone pairing: POST /pairing, GET /pairing/{id}, POST /pairing/claim, /devices', () => {
  let api: InProcessApp;
  /** A second account, whose pairing codes and devices the first must not reach. */
  let otherToken: string;

  beforeAll(async () => {
    api = await startInProcessApp();
    otherToken = (await createAccount(api.storage, { email: 'other@example.test', scopes: ALL_SCOPES }))
      .token;
  });
  afterAll(() => api.close());

  const createCode = async (token?: string) => {
    const res = await api.inject({ method: 'POST', url: '/api/v1/pairing', token });
    expect(res.statusCode).toBe(201);
    return res.json<CreatedPairingCode>();
  };
  /** Claims with no bearer token at all: the code is the credential. */
  const claim = (code: string, device_name = 'Ada’s phone') =>
    api.inject({ method: 'POST', url: '/api/v1/pairing/claim', token: null, payload: { code, device_name } });
  const status = (id: string, token?: string) =>
    api.inject({ method: 'GET', url: `/api/v1/pairing/${id}`, token });
  /** What a refused claim answers, minus the request id: the same for every reason a code is refused. */
  const refusal = (problem: Problem) => ({ ...problem, request_id: undefined });

  it('creates a code shown as ABCD-EFGH that lives ten minutes and waits for a phone', async () => {
    const before = Date.now();
    const created = await createCode();
    expect(created.id).toMatch(/^pair_/);
    expect(created.code).toMatch(/^[A-HJKMNP-TV-Z2-9]{4}-[A-HJKMNP-TV-Z2-9]{4}$/);
    const lifetime = Date.parse(created.expires_at) - before;
    expect(lifetime).toBeGreaterThan(10 * 60_000 - 5_000);
    expect(lifetime).toBeLessThanOrEqual(10 * 60_000 + 1_000);
    const res = await status(created.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: created.id, status: 'waiting', expires_at: created.expires_at });
    expect(res.json()).not.toHaveProperty('code');
  });

  it('gives a phone that claims the code, without a token, a device token that works, once', async () => {
    const created = await createCode();
    // Typed on a phone: lower case, without the dash.
    const res = await claim(created.code.replace('-', '').toLowerCase());
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-ratelimit-resource']).toBe('auth');
    const claimed = res.json<ClaimedDevice>();
    expect(claimed.token).toMatch(/^asd_[0-9A-Za-z]{36}$/);
    expect(claimed.device).toMatchObject({ name: 'Ada’s phone', token_prefix: claimed.token.slice(0, 8) });
    expect(claimed.device.id).toMatch(/^dev_/);

    const me = await api.inject({ method: 'GET', url: '/api/v1/me', token: claimed.token });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: api.userId, token: { kind: 'device' } });

    const waited = (await status(created.id)).json<Pairing>();
    expect(waited).toMatchObject({
      status: 'claimed',
      device: { id: claimed.device.id, name: 'Ada’s phone' },
    });

    const again = await claim(created.code, 'Mallory’s phone');
    expect(again.statusCode).toBe(422);
    expect(refusal(again.json())).toEqual(refusal((await claim('ZZZZ-ZZZZ')).json()));
  });

  it('gives the device every scope of the creating token except write:account', async () => {
    const claimed = (await claim((await createCode()).code)).json<ClaimedDevice>();
    expect(claimed.device.scopes.sort()).toEqual(ALL_SCOPES.filter((s) => s !== 'write:account').sort());
    const devices = await api.inject({ method: 'GET', url: '/api/v1/devices', token: claimed.token });
    expect(devices.statusCode).toBe(403);
    expect(devices.json()).toMatchObject({ code: 'insufficient_scope' });
    const pairAgain = await api.inject({ method: 'POST', url: '/api/v1/pairing', token: claimed.token });
    expect(pairAgain.statusCode).toBe(403);
  });

  it('hands a device no more than a narrow, short-lived creating token holds, for no longer', async () => {
    const expiresAt = new Date(Date.now() + 5 * 60_000);
    const narrow = await api.issueToken(['write:account', 'read:memories'], expiresAt);
    const created = await createCode(narrow);
    // The code cannot outlive the token that made it either.
    expect(created.expires_at).toBe(expiresAt.toISOString());
    const { device } = (await claim(created.code)).json<ClaimedDevice>();
    expect(device).toMatchObject({ scopes: ['read:memories'], expires_at: expiresAt.toISOString() });
  });

  it('refuses a wrong, malformed, used or expired code with one and the same 422', async () => {
    const wrong = await claim('ABCD-EFGH');
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'code', message: expect.stringContaining('wrong, already used or expired') }],
    });

    // Expired ten minutes ago, written through storage as the server would have written it then.
    const { code, digest } = generatePairingCode();
    const stale = await api.storage.pairingCodes.create({
      userId: api.userId,
      digest,
      scopes: ['read:account'],
      tokenExpiresAt: null,
      expiresAt: new Date(Date.now() - 1_000),
    });
    const expired = await claim(code);
    expect(expired.statusCode).toBe(422);
    expect((await status(stale!.id)).json()).toMatchObject({ status: 'expired' });

    for (const other of [expired, await claim('not a code at all'), await claim('')])
      expect(refusal(other.json())).toEqual(refusal(wrong.json()));
  });

  it('lets exactly one of ten concurrent claims of one code win', async () => {
    const { code } = await createCode();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(code, `phone ${i}`)));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(422)]);
  });

  it('keeps pairing codes and devices to their account: another account gets 404', async () => {
    const created = await createCode();
    const claimed = (await claim(created.code)).json<ClaimedDevice>();
    expect((await status(created.id, otherToken)).statusCode).toBe(404);
    const theirs = await api.inject({
      method: 'DELETE',
      url: `/api/v1/devices/${claimed.device.id}`,
      token: otherToken,
    });
    expect(theirs.statusCode).toBe(404);
    const theirList = await api.inject({ method: 'GET', url: '/api/v1/devices', token: otherToken });
    expect(theirList.json<ListEnvelope<Device>>().data).toEqual([]);
    expect((await api.inject({ method: 'GET', url: '/api/v1/me', token: claimed.token })).statusCode).toBe(
      200,
    );
  });

  it('lists the devices, newest first, and revoking one makes its token 401 on the next request', async () => {
    const created = await createCode();
    const claimed = (await claim(created.code, 'Kitchen tablet')).json<ClaimedDevice>();
    // Used once, so that the server has verified (and may remember) the token before it is revoked.
    expect((await api.inject({ method: 'GET', url: '/api/v1/me', token: claimed.token })).statusCode).toBe(
      200,
    );

    const list = await api.inject({ method: 'GET', url: '/api/v1/devices?limit=1' });
    expect(list.statusCode).toBe(200);
    const page = list.json<ListEnvelope<Device>>();
    expect(page.data).toEqual([expect.objectContaining({ id: claimed.device.id, name: 'Kitchen tablet' })]);
    expect(page.data[0]).not.toHaveProperty('token');
    expect(page.next_cursor).toEqual(expect.any(String));
    const next = await api.inject({
      method: 'GET',
      url: `/api/v1/devices?limit=1&cursor=${page.next_cursor}`,
    });
    expect(next.statusCode).toBe(200);
    expect(next.json<ListEnvelope<Device>>().data[0].id).not.toBe(claimed.device.id);

    const revoked = await api.inject({ method: 'DELETE', url: `/api/v1/devices/${claimed.device.id}` });
    expect(revoked.statusCode).toBe(204);
    const me = await api.inject({ method: 'GET', url: '/api/v1/me', token: claimed.token });
    expect(me.statusCode).toBe(401);
    expect(me.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(
      (await api.inject({ method: 'DELETE', url: `/api/v1/devices/${claimed.device.id}` })).statusCode,
    ).toBe(404);
    // The code stays spent; its device is gone.
    expect((await status(created.id)).json()).toEqual({
      id: created.id,
      status: 'claimed',
      expires_at: created.expires_at,
    });
  });

  it('needs write:account to create or watch a code, and a token for /devices', async () => {
    const reader = await api.issueToken(['read:account']);
    expect((await api.inject({ method: 'POST', url: '/api/v1/pairing', token: reader })).statusCode).toBe(
      403,
    );
    const created = await createCode();
    expect((await status(created.id, reader)).statusCode).toBe(403);
    expect((await api.inject({ method: 'GET', url: '/api/v1/devices', token: null })).statusCode).toBe(401);
  });
});
