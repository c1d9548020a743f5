import type { CreatedToken } from '@assistant/contracts';
import { createAccount } from '../accounts/create-account';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { cappedExpiry } from './tokens.service';

describe('POST /tokens: a minted token lives no longer than the token that minted it', () => {
  let api: InProcessApp;
  let parentExpiry: Date;
  let parent: string;

  beforeAll(async () => {
    api = await startInProcessApp({ scopes: ['write:account', 'read:account'] });
    parentExpiry = new Date(Date.now() + 2 * 60_000);
    parent = await api.issueToken(['write:account', 'read:account'], parentExpiry);
  });
  afterAll(() => api.close());

  const mint = (token: string, body: Record<string, unknown>) =>
    api.inject({ method: 'POST', url: '/api/v1/tokens', token, payload: { name: 'child', ...body } });

  it('gives a child asking for no expiry, or a later one, the parent’s expiry, and says so in the reply', async () => {
    for (const expires_at of [undefined, '2999-01-01T00:00:00Z']) {
      const res = await mint(parent, { scopes: ['read:account'], expires_at });
      expect(res.statusCode).toBe(201);
      const child = res.json<CreatedToken>();
      expect(child.expires_at).toBe(parentExpiry.toISOString());
      const me = await api.inject({ method: 'GET', url: '/api/v1/me', token: child.token });
      expect(me.json()).toMatchObject({ token: { expires_at: parentExpiry.toISOString() } });
    }
  });

  it('keeps an earlier expiry asked for, and any expiry under a parent without one', async () => {
    const sooner = new Date(Date.now() + 60_000).toISOString();
    expect((await mint(parent, { scopes: ['read:account'], expires_at: sooner })).json()).toMatchObject({
      expires_at: sooner,
    });
    expect((await mint(api.token, { scopes: ['read:account'] })).json()).toMatchObject({ expires_at: null });
    const later = '2999-01-01T00:00:00.000Z';
    expect((await mint(api.token, { scopes: ['read:account'], expires_at: later })).json()).toMatchObject({
      expires_at: later,
    });
  });

  it('still refuses scopes the parent does not hold', async () => {
    const res = await mint(parent, { scopes: ['read:memories'] });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'scopes', message: 'read:memories is not held by the token making this call' }],
    });
  });
});

describe('GET /tokens and DELETE /tokens/{id} across accounts (B1)', () => {
  let api: InProcessApp;
  beforeAll(async () => {
    api = await startInProcessApp();
  });
  afterAll(() => api.close());

  const list = async (token: string) =>
    (await api.inject({ method: 'GET', url: '/api/v1/tokens', token })).json<{
      data: Array<{ id: string }>;
    }>().data;

  it("lists only the caller's own account's tokens, and another account's token is 404 to revoke", async () => {
    const other = await createAccount(api.storage, {
      email: 'other@example.test',
      scopes: ['write:account'],
    });
    const mine = (await list(api.token)).map((t) => t.id);
    const theirs = (await list(other.token)).map((t) => t.id);

    expect(mine.length).toBeGreaterThan(0);
    expect(theirs).toHaveLength(1);
    expect(mine).not.toContain(theirs[0]);
    const revoke = await api.inject({ method: 'DELETE', url: `/api/v1/tokens/${theirs[0]}` });
    expect(revoke.statusCode).toBe(404);
    expect(await list(other.token)).toHaveLength(1);
  });
});

describe('cappedExpiry', () => {
  const parent = new Date('2030-01-01T00:00:00Z');
  it('caps at the parent’s expiry and leaves an earlier one alone', () => {
    expect(cappedExpiry(null, parent)).toBe(parent);
    expect(cappedExpiry(new Date('2031-01-01T00:00:00Z'), parent)).toBe(parent);
    expect(cappedExpiry(new Date('2029-01-01T00:00:00Z'), parent)).toEqual(new Date('2029-01-01T00:00:00Z'));
    expect(cappedExpiry(null, null)).toBeNull();
  });
});
